module @jit_apply attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<64xf32>, %arg4: tensor<64xf32>, %arg5: tensor<32x64xf32>, %arg6: tensor<8xf32>, %arg7: tensor<64x8xf32>, %arg8: tensor<16x32xf32>) -> (tensor<16x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %7 = stablehlo.subtract %3, %6 : tensor<16x64xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %9 = stablehlo.add %5, %8 : tensor<1x64xf32>
    %10 = stablehlo.rsqrt %9 : tensor<1x64xf32>
    %11 = stablehlo.reshape %arg3 : (tensor<64xf32>) -> tensor<1x64xf32>
    %12 = stablehlo.multiply %10, %11 : tensor<1x64xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %14 = stablehlo.multiply %7, %13 : tensor<16x64xf32>
    %15 = stablehlo.reshape %arg2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %17 = stablehlo.add %14, %16 : tensor<16x64xf32>
    %18 = call @relu(%17) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %19 = stablehlo.dot_general %18, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %20 = stablehlo.reshape %arg6 : (tensor<8xf32>) -> tensor<1x8xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %22 = stablehlo.add %19, %21 : tensor<16x8xf32>
    return %22 : tensor<16x8xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}
