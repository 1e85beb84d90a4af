module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256x256xf32>, %arg3: tensor<256xf32>, %arg4: tensor<256x256xf32>, %arg5: tensor<256xf32>, %arg6: tensor<32x256xf32>, %arg7: tensor<32x256xf32>) -> (tensor<256x256xf32> {jax.result_info = "result[0][0][0]"}, tensor<256xf32> {jax.result_info = "result[0][0][1]"}, tensor<256x256xf32> {jax.result_info = "result[0][1][0]"}, tensor<256xf32> {jax.result_info = "result[0][1][1]"}, tensor<256x256xf32> {jax.result_info = "result[0][2][0]"}, tensor<256xf32> {jax.result_info = "result[0][2][1]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg6, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %3 = stablehlo.add %0, %2 : tensor<32x256xf32>
    %4 = call @relu(%3) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %10 = stablehlo.add %7, %9 : tensor<32x256xf32>
    %11 = call @relu(%10) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %13 = stablehlo.compare GT, %10, %12, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %14 = stablehlo.dot_general %11, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %15 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %17 = stablehlo.add %14, %16 : tensor<32x256xf32>
    %18 = call @relu(%17) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %20 = stablehlo.compare GT, %17, %19, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %21 = stablehlo.subtract %18, %arg7 : tensor<32x256xf32>
    %22 = stablehlo.multiply %21, %21 : tensor<32x256xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %24 = stablehlo.multiply %23, %21 : tensor<32x256xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%22 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x256xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %26 = stablehlo.divide %25, %cst_4 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_6 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %27 = stablehlo.divide %cst_5, %cst_6 : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %29 = stablehlo.multiply %28, %24 : tensor<32x256xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %31 = stablehlo.select %20, %29, %30 : tensor<32x256xi1>, tensor<32x256xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %33 = stablehlo.reshape %32 : (tensor<256xf32>) -> tensor<1x256xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %35 = stablehlo.dot_general %31, %11, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %36 = stablehlo.transpose %35, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %37 = stablehlo.dot_general %31, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %39 = stablehlo.select %13, %37, %38 : tensor<32x256xi1>, tensor<32x256xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.reduce(%39 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %41 = stablehlo.reshape %40 : (tensor<256xf32>) -> tensor<1x256xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.reduce(%41 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %43 = stablehlo.dot_general %39, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %44 = stablehlo.transpose %43, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %45 = stablehlo.dot_general %39, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %47 = stablehlo.select %6, %45, %46 : tensor<32x256xi1>, tensor<32x256xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.reduce(%47 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %49 = stablehlo.reshape %48 : (tensor<256xf32>) -> tensor<1x256xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %51 = stablehlo.dot_general %47, %arg6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %52 = stablehlo.transpose %51, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %cst_16 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %54 = stablehlo.multiply %53, %52 : tensor<256x256xf32>
    %55 = stablehlo.subtract %arg0, %54 : tensor<256x256xf32>
    %cst_17 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %57 = stablehlo.multiply %56, %50 : tensor<256xf32>
    %58 = stablehlo.subtract %arg1, %57 : tensor<256xf32>
    %cst_18 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %60 = stablehlo.multiply %59, %44 : tensor<256x256xf32>
    %61 = stablehlo.subtract %arg2, %60 : tensor<256x256xf32>
    %cst_19 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %63 = stablehlo.multiply %62, %42 : tensor<256xf32>
    %64 = stablehlo.subtract %arg3, %63 : tensor<256xf32>
    %cst_20 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %66 = stablehlo.multiply %65, %36 : tensor<256x256xf32>
    %67 = stablehlo.subtract %arg4, %66 : tensor<256x256xf32>
    %cst_21 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %69 = stablehlo.multiply %68, %34 : tensor<256xf32>
    %70 = stablehlo.subtract %arg5, %69 : tensor<256xf32>
    return %55, %58, %61, %64, %67, %70, %26 : tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<32x256xf32>
    return %1 : tensor<32x256xf32>
  }
}
