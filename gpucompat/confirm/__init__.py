"""`gpucompat confirm`: compile a model with LiteRT's own GPU accelerator and set what it reports
beside the `litert-mldrift` prediction.

logs.py reads the runtime's log lines (the one place that knows their wording), child.py runs in
the child process that compiles, runner.py starts and watches that process, compare.py states
both sides in the same terms and lists where they disagree.
"""
