module @jit_apply attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<64xf32>, %arg4: tensor<64xf32>, %arg5: tensor<32x64xf32>, %arg6: tensor<8xf32>, %arg7: tensor<64x8xf32>, %arg8: tensor<16x32xf32>) -> (tensor<16x8xf32> {jax.result_info = "result[0]"}, tensor<64xf32> {jax.result_info = "result[1]['batch_stats']['BatchNorm_0']['mean']"}, tensor<64xf32> {jax.result_info = "result[1]['batch_stats']['BatchNorm_0']['var']"}) {
    %0 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf32>
    %4 = chlo.square %3 : tensor<16x64xf32> -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %7 = stablehlo.divide %5, %6 : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %10 = stablehlo.divide %8, %9 : tensor<64xf32>
    %11 = chlo.square %7 : tensor<64xf32> -> tensor<64xf32>
    %12 = stablehlo.subtract %10, %11 : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %14 = stablehlo.maximum %13, %12 : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %16 = stablehlo.multiply %15, %arg0 : tensor<64xf32>
    %cst_5 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %18 = stablehlo.multiply %17, %7 : tensor<64xf32>
    %19 = stablehlo.add %16, %18 : tensor<64xf32>
    %cst_6 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %21 = stablehlo.multiply %20, %arg1 : tensor<64xf32>
    %cst_7 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %23 = stablehlo.multiply %22, %14 : tensor<64xf32>
    %24 = stablehlo.add %21, %23 : tensor<64xf32>
    %25 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %26 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %27 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %28 = stablehlo.subtract %3, %27 : tensor<16x64xf32>
    %cst_8 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %30 = stablehlo.add %26, %29 : tensor<1x64xf32>
    %31 = stablehlo.rsqrt %30 : tensor<1x64xf32>
    %32 = stablehlo.reshape %arg3 : (tensor<64xf32>) -> tensor<1x64xf32>
    %33 = stablehlo.multiply %31, %32 : tensor<1x64xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %35 = stablehlo.multiply %28, %34 : tensor<16x64xf32>
    %36 = stablehlo.reshape %arg2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %38 = stablehlo.add %35, %37 : tensor<16x64xf32>
    %39 = call @relu(%38) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %40 = stablehlo.dot_general %39, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %41 = stablehlo.reshape %arg6 : (tensor<8xf32>) -> tensor<1x8xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %43 = stablehlo.add %40, %42 : tensor<16x8xf32>
    return %43, %19, %24 : tensor<16x8xf32>, tensor<64xf32>, tensor<64xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}
