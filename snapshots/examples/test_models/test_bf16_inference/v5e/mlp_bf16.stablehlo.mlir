module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x256xbf16>, %arg1: tensor<256xbf16>, %arg2: tensor<256x256xbf16>, %arg3: tensor<256xbf16>, %arg4: tensor<16x256xbf16>) -> (tensor<16x256xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xbf16>, tensor<256x256xbf16>) -> tensor<16x256xbf16>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xbf16>) -> tensor<1x256xbf16>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x256xbf16>) -> tensor<16x256xbf16>
    %3 = stablehlo.add %0, %2 : tensor<16x256xbf16>
    %4 = call @relu(%3) : (tensor<16x256xbf16>) -> tensor<16x256xbf16>
    %5 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xbf16>, tensor<256x256xbf16>) -> tensor<16x256xbf16>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xbf16>) -> tensor<1x256xbf16>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x256xbf16>) -> tensor<16x256xbf16>
    %8 = stablehlo.add %5, %7 : tensor<16x256xbf16>
    %9 = call @relu(%8) : (tensor<16x256xbf16>) -> tensor<16x256xbf16>
    return %9 : tensor<16x256xbf16>
  }
  func.func private @relu(%arg0: tensor<16x256xbf16>) -> tensor<16x256xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x256xbf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x256xbf16>
    return %1 : tensor<16x256xbf16>
  }
}
