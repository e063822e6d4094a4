"""The zoo models whose prediction is known to differ from the real accelerator, by the class of
failure (issue 22's numbering) they show. The zoo test expects these to fail (strictly: a fix makes
the test say so), and the table names the class beside each."""

ZERO_ELEMENT = ("class 1: the INT32 [0] shape operand of RESHAPE (empty buffer) is taken for a runtime "
                "tensor, so the gate is predicted; the runtime delegates")
CANNOT_PREPARE = ("class 3: the stored input [1,1] leaves the 512-wide VALID CONV_2D an input of width 1; the "
                  "runtime fails to prepare it, the prediction delegates")
KERNEL_SETUP = ("class 8: masked_fill on a constant BOOL [32,32] mask (SELECT_V2) passes partitioning, then "
                "kernel setup fails ('Unable to parse bc coord for BATCH axis ... cond_tensor ... bool') and the "
                "whole compile with it; the prediction delegates")
OPEN_SIGNATURE_TOPK = ("new class: TOPK_V2 whose input has a -1 in its shape signature (dynamic batch) makes its "
                       "outputs dynamic at prepare (the kernel resizes them only when no dimension is unspecified), "
                       "so the runtime's gate fires; the prediction delegates")
QUANTIZED_KERNEL_SETUP = ("class 8 family, new trigger: ai-edge-quantizer int8 weights on transformer blocks pass "
                          "partitioning, then kernel setup fails ('Unable to parse bc coord for BATCH axis ... args "
                          "are res, DST_X' with dynamic_wi8_afp32, 'Shape mismatch: {192,1,1,64} vs {1,1,192,64}' "
                          "with weight_only_wi8_afp32); the prediction delegates")
INT4_CRASH = ("new class: blockwise INT4 weights (ai-edge-quantizer dynamic_wi4b32_afp32) crash the accelerator "
              "while compiling (abort 'munmap_chunk(): invalid pointer', or SIGSEGV); the prediction delegates")

KNOWN_DISAGREEMENTS: dict[str, str] = {
    **{f"app_zero_element_shape_{m}": ZERO_ELEMENT for m in ("fp32", "fp16", "dynamic", "int8", "batch")},
    **{f"app_placeholder_wave_{m}": CANNOT_PREPARE for m in ("fp32", "fp16", "dynamic", "batch")},
    "torch_transformer_decoder_fp32": KERNEL_SETUP,
    "app_box_decoder_batch": OPEN_SIGNATURE_TOPK,
    "torch_transformer_decoder_aeq_dynamic": KERNEL_SETUP,
    "torch_transformer_decoder_aeq_weight_only": KERNEL_SETUP,
    "torch_transformer_encoder_aeq_dynamic": QUANTIZED_KERNEL_SETUP,
    "torch_transformer_encoder_aeq_weight_only": QUANTIZED_KERNEL_SETUP,
    **{f"torch_{n}_aeq_int4_blockwise": INT4_CRASH
       for n in ("resnet18", "mobilenet_v3_small", "googlenet", "transformer_encoder", "transformer_decoder")},
}
