module @jit_paged_attention attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8x128xbf16>, %arg1: tensor<2x128x16x128xbf16>, %arg2: tensor<2x128x16x128xbf16>, %arg3: tensor<8xi32>, %arg4: tensor<8x16xi32>) -> (tensor<8x8x128xbf16> {jax.result_info = "result"}) {
    %0 = call @paged_attention(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<8x8x128xbf16>, tensor<2x128x16x128xbf16>, tensor<2x128x16x128xbf16>, tensor<8xi32>, tensor<8x16xi32>) -> tensor<8x8x128xbf16>
    return %0 : tensor<8x8x128xbf16>
  }
  func.func private @paged_attention(%arg0: tensor<8x8x128xbf16>, %arg1: tensor<2x128x16x128xbf16>, %arg2: tensor<2x128x16x128xbf16>, %arg3: tensor<8xi32>, %arg4: tensor<8x16xi32>) -> tensor<8x8x128xbf16> {
    %0 = stablehlo.reshape %arg0 : (tensor<8x8x128xbf16>) -> tensor<8x8x1x128xbf16>
    %1 = stablehlo.reshape %arg4 : (tensor<8x16xi32>) -> tensor<128xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %4 = stablehlo.convert %0 : (tensor<8x8x1x128xbf16>) -> tensor<8x8x1x128xf32>
    %5:3 = stablehlo.custom_call @tpu_custom_call(%arg3, %1, %2, %3, %4, %arg1, %arg2) {backend_config = "{\22custom_call_config\22: {\22body\22: \22kernel:paged_flash_attention_kernel_inline_seq_dim#37aac20ef3bc\22, \22serialization_format\22: 1, \22needs_layout_passes\22: true}}", kernel_name = "paged_flash_attention_kernel_inline_seq_dim", mhlo.frontend_attributes = {kernel_metadata = "{}"}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[3, 2, 1, 0]> : tensor<4xindex>, dense<[3, 2, 1, 0]> : tensor<4xindex>, dense<[3, 2, 1, 0]> : tensor<4xindex>], result_layouts = [dense<[3, 2, 1, 0]> : tensor<4xindex>, dense<[3, 2, 1, 0]> : tensor<4xindex>, dense<[3, 2, 1, 0]> : tensor<4xindex>]} : (tensor<8xi32>, tensor<128xi32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8x1x128xf32>, tensor<2x128x16x128xbf16>, tensor<2x128x16x128xbf16>) -> (tensor<8x8x1x128xf32>, tensor<8x8x1x1xf32>, tensor<8x8x1x1xf32>)
    %6 = stablehlo.reshape %5#0 : (tensor<8x8x1x128xf32>) -> tensor<8x8x128xf32>
    %7 = stablehlo.convert %6 : (tensor<8x8x128xf32>) -> tensor<8x8x128xbf16>
    return %7 : tensor<8x8x128xbf16>
  }
}
