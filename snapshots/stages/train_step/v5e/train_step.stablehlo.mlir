module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128x128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<128x128xf32>, %arg3: tensor<128xf32>, %arg4: tensor<16x128xf32>, %arg5: tensor<16x128xf32>) -> (tensor<128x128xf32> {jax.result_info = "result[0][0][0]"}, tensor<128xf32> {jax.result_info = "result[0][0][1]"}, tensor<128x128xf32> {jax.result_info = "result[0][1][0]"}, tensor<128xf32> {jax.result_info = "result[0][1][1]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<16x128xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x128xf32>
    %4 = call @relu(%3) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<16x128xf32>
    %10 = stablehlo.add %7, %9 : tensor<16x128xf32>
    %11 = call @relu(%10) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %13 = stablehlo.compare GT, %10, %12, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %14 = stablehlo.subtract %11, %arg5 : tensor<16x128xf32>
    %15 = stablehlo.multiply %14, %14 : tensor<16x128xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %17 = stablehlo.multiply %16, %14 : tensor<16x128xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%15 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %19 = stablehlo.divide %18, %cst_3 : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_5 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %20 = stablehlo.divide %cst_4, %cst_5 : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %22 = stablehlo.multiply %21, %17 : tensor<16x128xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %24 = stablehlo.select %13, %22, %23 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %26 = stablehlo.reshape %25 : (tensor<128xf32>) -> tensor<1x128xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x128xf32>, tensor<f32>) -> tensor<128xf32>
    %28 = stablehlo.dot_general %24, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<128x128xf32>
    %29 = stablehlo.transpose %28, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %30 = stablehlo.dot_general %24, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %32 = stablehlo.select %6, %30, %31 : tensor<16x128xi1>, tensor<16x128xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %34 = stablehlo.reshape %33 : (tensor<128xf32>) -> tensor<1x128xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%34 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x128xf32>, tensor<f32>) -> tensor<128xf32>
    %36 = stablehlo.dot_general %32, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<128x128xf32>
    %37 = stablehlo.transpose %36, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %cst_12 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<128x128xf32>
    %39 = stablehlo.multiply %38, %37 : tensor<128x128xf32>
    %40 = stablehlo.subtract %arg0, %39 : tensor<128x128xf32>
    %cst_13 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %42 = stablehlo.multiply %41, %35 : tensor<128xf32>
    %43 = stablehlo.subtract %arg1, %42 : tensor<128xf32>
    %cst_14 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<128x128xf32>
    %45 = stablehlo.multiply %44, %29 : tensor<128x128xf32>
    %46 = stablehlo.subtract %arg2, %45 : tensor<128x128xf32>
    %cst_15 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %48 = stablehlo.multiply %47, %27 : tensor<128xf32>
    %49 = stablehlo.subtract %arg3, %48 : tensor<128xf32>
    return %40, %43, %46, %49, %19 : tensor<128x128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x128xf32>
    return %1 : tensor<16x128xf32>
  }
}
