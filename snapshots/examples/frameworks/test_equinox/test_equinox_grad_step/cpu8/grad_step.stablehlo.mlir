module @jit_grad_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64x32xf32>, %arg1: tensor<64xf32>, %arg2: tensor<8x64xf32>, %arg3: tensor<8xf32>, %arg4: tensor<16x32xf32>, %arg5: tensor<16x8xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<64x32xf32> {jax.result_info = "result[1].l1.weight", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64xf32> {jax.result_info = "result[1].l1.bias", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8x64xf32> {jax.result_info = "result[1].l2.weight", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[1].l2.bias", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<64x16xf32>) -> tensor<16x64xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %6 = stablehlo.add %3, %5 : tensor<16x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %8 = call @relu(%7) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %11 = stablehlo.compare GT, %7, %10, FLOAT : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xi1>
    %12 = stablehlo.dot_general %arg2, %8, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}]> : tensor<8x16xf32>
    %14 = stablehlo.transpose %13, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %16 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %19 = stablehlo.add %15, %18 : tensor<16x8xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %21 = sdy.sharding_constraint %arg5 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %22 = stablehlo.subtract %20, %21 : tensor<16x8xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %26 = stablehlo.multiply %25, %23 : tensor<16x8xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = sdy.sharding_constraint %cst_1 <@mesh, []> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %29 = sdy.sharding_constraint %cst_2 <@mesh, []> : tensor<f32>
    %30 = stablehlo.divide %28, %29 : tensor<f32>
    %31 = sdy.sharding_constraint %30 <@mesh, []> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %34 = stablehlo.multiply %33, %27 : tensor<16x8xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}]> : tensor<8xf32>
    %38 = stablehlo.reshape %37 : (tensor<8xf32>) -> tensor<1x8xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.reduce(%39 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{}]> : tensor<8xf32>
    %42 = stablehlo.transpose %35, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}, {}]> : tensor<8x16xf32>
    %44 = stablehlo.dot_general %43, %arg2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<8x64xf32>) -> tensor<16x64xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %46 = stablehlo.dot_general %43, %8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %50 = stablehlo.select %11, %45, %49 : tensor<16x64xi1>, tensor<16x64xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{}]> : tensor<64xf32>
    %54 = stablehlo.reshape %53 : (tensor<64xf32>) -> tensor<1x64xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%55 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{}]> : tensor<64xf32>
    %58 = stablehlo.transpose %51, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {}]> : tensor<64x16xf32>
    %60 = stablehlo.dot_general %59, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %cst_8 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %64 = stablehlo.multiply %63, %61 : tensor<64x32xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %cst_9 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{}]> : tensor<64xf32>
    %68 = stablehlo.multiply %67, %57 : tensor<64xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}]> : tensor<64xf32>
    %cst_10 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %72 = stablehlo.multiply %71, %47 : tensor<8x64xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %cst_11 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}]> : tensor<8xf32>
    %76 = stablehlo.multiply %75, %41 : tensor<8xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}]> : tensor<8xf32>
    %78 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %79 = stablehlo.add %78, %65 : tensor<64x32xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %81 = sdy.sharding_constraint %arg1 <@mesh, [{}]> : tensor<64xf32>
    %82 = stablehlo.add %81, %69 : tensor<64xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}]> : tensor<64xf32>
    %84 = sdy.sharding_constraint %arg2 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %85 = stablehlo.add %84, %73 : tensor<8x64xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %87 = sdy.sharding_constraint %arg3 <@mesh, [{}]> : tensor<8xf32>
    %88 = stablehlo.add %87, %77 : tensor<8xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}]> : tensor<8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    return %c, %80, %83, %86, %89 : tensor<i32>, tensor<64x32xf32>, tensor<64xf32>, tensor<8x64xf32>, tensor<8xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
}
