module @jit_grad_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x32xf32>, %arg1: tensor<64xf32>, %arg2: tensor<8x64xf32>, %arg3: tensor<8xf32>, %arg4: tensor<16x32xf32>, %arg5: tensor<16x8xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<64x32xf32> {jax.result_info = "result[1].l1.weight"}, tensor<64xf32> {jax.result_info = "result[1].l1.bias"}, tensor<8x64xf32> {jax.result_info = "result[1].l2.weight"}, tensor<8xf32> {jax.result_info = "result[1].l2.bias"}) {
    %0 = stablehlo.dot_general %arg0, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<64x16xf32>) -> tensor<16x64xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %4 = stablehlo.add %1, %3 : tensor<16x64xf32>
    %5 = call @relu(%4) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %7 = stablehlo.compare GT, %4, %6, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %8 = stablehlo.dot_general %arg2, %5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
    %9 = stablehlo.transpose %8, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %10 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %12 = stablehlo.add %9, %11 : tensor<16x8xf32>
    %13 = stablehlo.subtract %12, %arg5 : tensor<16x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %15 = stablehlo.multiply %14, %13 : tensor<16x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %16 = stablehlo.divide %cst_1, %cst_2 : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %18 = stablehlo.multiply %17, %15 : tensor<16x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %20 = stablehlo.reshape %19 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.reduce(%20 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %22 = stablehlo.transpose %18, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %23 = stablehlo.dot_general %22, %arg2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<8x64xf32>) -> tensor<16x64xf32>
    %24 = stablehlo.dot_general %22, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %26 = stablehlo.select %7, %23, %25 : tensor<16x64xi1>, tensor<16x64xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %28 = stablehlo.reshape %27 : (tensor<64xf32>) -> tensor<1x64xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %30 = stablehlo.transpose %26, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
    %31 = stablehlo.dot_general %30, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
    %cst_8 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %33 = stablehlo.multiply %32, %31 : tensor<64x32xf32>
    %cst_9 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %35 = stablehlo.multiply %34, %29 : tensor<64xf32>
    %cst_10 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %37 = stablehlo.multiply %36, %24 : tensor<8x64xf32>
    %cst_11 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %39 = stablehlo.multiply %38, %21 : tensor<8xf32>
    %40 = stablehlo.add %arg0, %33 : tensor<64x32xf32>
    %41 = stablehlo.add %arg1, %35 : tensor<64xf32>
    %42 = stablehlo.add %arg2, %37 : tensor<8x64xf32>
    %43 = stablehlo.add %arg3, %39 : tensor<8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    return %c, %40, %41, %42, %43 : tensor<i32>, tensor<64x32xf32>, tensor<64xf32>, tensor<8x64xf32>, tensor<8xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}
