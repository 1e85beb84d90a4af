module @jit_apply attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg6: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64xf32> {jax.result_info = "result[1]['batch_stats']['BatchNorm_0']['mean']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64xf32> {jax.result_info = "result[1]['batch_stats']['BatchNorm_0']['var']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %6 = stablehlo.add %1, %5 : tensor<16x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %8 = chlo.square %7 : tensor<16x64xf32> -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%7 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}]> : tensor<64xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{}]> : tensor<64xf32>
    %13 = stablehlo.divide %10, %12 : tensor<64xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{}]> : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%8 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}]> : tensor<64xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{}]> : tensor<64xf32>
    %19 = stablehlo.divide %16, %18 : tensor<64xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{}]> : tensor<64xf32>
    %21 = chlo.square %14 : tensor<64xf32> -> tensor<64xf32>
    %22 = stablehlo.subtract %20, %21 : tensor<64xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}]> : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}]> : tensor<64xf32>
    %26 = stablehlo.maximum %25, %23 : tensor<64xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}]> : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}]> : tensor<64xf32>
    %30 = stablehlo.multiply %29, %arg0 : tensor<64xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}]> : tensor<64xf32>
    %cst_5 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{}]> : tensor<64xf32>
    %34 = stablehlo.multiply %33, %14 : tensor<64xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{}]> : tensor<64xf32>
    %36 = stablehlo.add %31, %35 : tensor<64xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}]> : tensor<64xf32>
    %cst_6 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}]> : tensor<64xf32>
    %40 = stablehlo.multiply %39, %arg1 : tensor<64xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{}]> : tensor<64xf32>
    %cst_7 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}]> : tensor<64xf32>
    %44 = stablehlo.multiply %43, %27 : tensor<64xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{}]> : tensor<64xf32>
    %46 = stablehlo.add %41, %45 : tensor<64xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}]> : tensor<64xf32>
    %48 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %50 = stablehlo.broadcast_in_dim %27, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %52 = stablehlo.broadcast_in_dim %49, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %54 = stablehlo.subtract %7, %53 : tensor<16x64xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_8 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %58 = stablehlo.add %51, %57 : tensor<1x64xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %60 = stablehlo.rsqrt %59 : tensor<1x64xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %62 = stablehlo.reshape %arg3 : (tensor<64xf32>) -> tensor<1x64xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %64 = stablehlo.multiply %61, %63 : tensor<1x64xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %68 = stablehlo.multiply %55, %67 : tensor<16x64xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %70 = stablehlo.reshape %arg2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %74 = stablehlo.add %69, %73 : tensor<16x64xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %76 = call @relu(%75) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %77 = stablehlo.dot_general %76, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %79 = stablehlo.reshape %arg6 : (tensor<8xf32>) -> tensor<1x8xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %83 = stablehlo.add %78, %82 : tensor<16x8xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{}, {}]> : tensor<16x8xf32>
    return %84, %37, %47 : tensor<16x8xf32>, tensor<64xf32>, tensor<64xf32>
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
