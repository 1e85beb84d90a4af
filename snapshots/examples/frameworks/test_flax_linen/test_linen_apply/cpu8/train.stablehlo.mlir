module @jit_apply attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<64xf32>, %arg4: tensor<64xf32>, %arg5: tensor<32x64xf32>, %arg6: tensor<8xf32>, %arg7: tensor<64x8xf32>, %arg8: tensor<16x32xf32>) -> (tensor<16x8xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64xf32> {jax.result_info = "result[1]['batch_stats']['BatchNorm_0']['mean']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64xf32> {jax.result_info = "result[1]['batch_stats']['BatchNorm_0']['var']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %5 = stablehlo.add %2, %4 : tensor<16x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %7 = chlo.square %6 : tensor<16x64xf32> -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}]> : tensor<64xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}]> : tensor<64xf32>
    %12 = stablehlo.divide %9, %11 : tensor<64xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}]> : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}]> : tensor<64xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}]> : tensor<64xf32>
    %18 = stablehlo.divide %15, %17 : tensor<64xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}]> : tensor<64xf32>
    %20 = chlo.square %13 : tensor<64xf32> -> tensor<64xf32>
    %21 = stablehlo.subtract %19, %20 : tensor<64xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{}]> : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{}]> : tensor<64xf32>
    %25 = stablehlo.maximum %24, %22 : tensor<64xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{}]> : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{}]> : tensor<64xf32>
    %29 = sdy.sharding_constraint %arg0 <@mesh, [{}]> : tensor<64xf32>
    %30 = stablehlo.multiply %28, %29 : tensor<64xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}]> : tensor<64xf32>
    %cst_5 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{}]> : tensor<64xf32>
    %34 = stablehlo.multiply %33, %13 : tensor<64xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{}]> : tensor<64xf32>
    %36 = stablehlo.add %31, %35 : tensor<64xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}]> : tensor<64xf32>
    %cst_6 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}]> : tensor<64xf32>
    %40 = sdy.sharding_constraint %arg1 <@mesh, [{}]> : tensor<64xf32>
    %41 = stablehlo.multiply %39, %40 : tensor<64xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}]> : tensor<64xf32>
    %cst_7 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{}]> : tensor<64xf32>
    %45 = stablehlo.multiply %44, %26 : tensor<64xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{}]> : tensor<64xf32>
    %47 = stablehlo.add %42, %46 : tensor<64xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{}]> : tensor<64xf32>
    %49 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %50 = sdy.sharding_constraint %49 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %51 = stablehlo.broadcast_in_dim %26, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %52 = sdy.sharding_constraint %51 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %53 = stablehlo.broadcast_in_dim %50, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %55 = stablehlo.subtract %6, %54 : tensor<16x64xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_8 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %59 = stablehlo.add %52, %58 : tensor<1x64xf32>
    %60 = sdy.sharding_constraint %59 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %61 = stablehlo.rsqrt %60 : tensor<1x64xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %63 = stablehlo.reshape %arg3 : (tensor<64xf32>) -> tensor<1x64xf32>
    %64 = sdy.sharding_constraint %63 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %65 = stablehlo.multiply %62, %64 : tensor<1x64xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %69 = stablehlo.multiply %56, %68 : tensor<16x64xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %71 = stablehlo.reshape %arg2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %74 = stablehlo.add %70, %73 : tensor<16x64xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %76 = call @relu(%75) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %77 = stablehlo.dot_general %76, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %79 = stablehlo.reshape %arg6 : (tensor<8xf32>) -> tensor<1x8xf32>
    %80 = stablehlo.broadcast_in_dim %79, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %82 = stablehlo.add %78, %81 : tensor<16x8xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}, {}]> : tensor<16x8xf32>
    return %83, %37, %48 : tensor<16x8xf32>, tensor<64xf32>, tensor<64xf32>
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
