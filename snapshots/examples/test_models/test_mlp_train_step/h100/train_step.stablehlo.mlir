module @jit_train_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg5: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg6: tensor<32x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg7: tensor<32x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<256x256xf32> {jax.result_info = "result[0][0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[0][0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[0][1][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[0][1][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[0][2][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[0][2][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg6, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %6 = stablehlo.add %1, %5 : tensor<32x256xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %8 = call @relu(%7) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %11 = stablehlo.compare GT, %7, %10, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %12 = stablehlo.dot_general %8, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %14 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %18 = stablehlo.add %13, %17 : tensor<32x256xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %20 = call @relu(%19) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %23 = stablehlo.compare GT, %19, %22, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %24 = stablehlo.dot_general %20, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %26 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %30 = stablehlo.add %25, %29 : tensor<32x256xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %32 = call @relu(%31) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %35 = stablehlo.compare GT, %31, %34, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %36 = stablehlo.subtract %32, %arg7 : tensor<32x256xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %38 = stablehlo.multiply %37, %37 : tensor<32x256xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %42 = stablehlo.multiply %41, %37 : tensor<32x256xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.reduce(%39 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x256xf32>, tensor<f32>) -> tensor<f32>
    %45 = sdy.sharding_constraint %44 <@mesh, []> : tensor<f32>
    %cst_4 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %46 = sdy.sharding_constraint %cst_4 <@mesh, []> : tensor<f32>
    %47 = stablehlo.divide %45, %46 : tensor<f32>
    %48 = sdy.sharding_constraint %47 <@mesh, []> : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %49 = sdy.sharding_constraint %cst_5 <@mesh, []> : tensor<f32>
    %cst_6 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %50 = sdy.sharding_constraint %cst_6 <@mesh, []> : tensor<f32>
    %51 = stablehlo.divide %49, %50 : tensor<f32>
    %52 = sdy.sharding_constraint %51 <@mesh, []> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %55 = stablehlo.multiply %54, %43 : tensor<32x256xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %59 = stablehlo.select %35, %56, %58 : tensor<32x256xi1>, tensor<32x256xf32>
    %60 = sdy.sharding_constraint %59 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.reduce(%60 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{}]> : tensor<256xf32>
    %63 = stablehlo.reshape %62 : (tensor<256xf32>) -> tensor<1x256xf32>
    %64 = sdy.sharding_constraint %63 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{}]> : tensor<256xf32>
    %67 = stablehlo.dot_general %60, %20, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %69 = stablehlo.transpose %68, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %71 = stablehlo.dot_general %60, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %75 = stablehlo.select %23, %72, %74 : tensor<32x256xi1>, tensor<32x256xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.reduce(%76 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}]> : tensor<256xf32>
    %79 = stablehlo.reshape %78 : (tensor<256xf32>) -> tensor<1x256xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.reduce(%80 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}]> : tensor<256xf32>
    %83 = stablehlo.dot_general %76, %8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %85 = stablehlo.transpose %84, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %87 = stablehlo.dot_general %76, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %91 = stablehlo.select %11, %88, %90 : tensor<32x256xi1>, tensor<32x256xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %93 = stablehlo.reduce(%92 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{}]> : tensor<256xf32>
    %95 = stablehlo.reshape %94 : (tensor<256xf32>) -> tensor<1x256xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %97 = stablehlo.reduce(%96 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{}]> : tensor<256xf32>
    %99 = stablehlo.dot_general %92, %arg6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %100 = sdy.sharding_constraint %99 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %101 = stablehlo.transpose %100, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %102 = sdy.sharding_constraint %101 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_16 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %104 = sdy.sharding_constraint %103 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %105 = stablehlo.multiply %104, %102 : tensor<256x256xf32>
    %106 = sdy.sharding_constraint %105 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %107 = stablehlo.subtract %arg0, %106 : tensor<256x256xf32>
    %108 = sdy.sharding_constraint %107 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_17 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %110 = sdy.sharding_constraint %109 <@mesh, [{}]> : tensor<256xf32>
    %111 = stablehlo.multiply %110, %98 : tensor<256xf32>
    %112 = sdy.sharding_constraint %111 <@mesh, [{}]> : tensor<256xf32>
    %113 = stablehlo.subtract %arg1, %112 : tensor<256xf32>
    %114 = sdy.sharding_constraint %113 <@mesh, [{}]> : tensor<256xf32>
    %cst_18 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %116 = sdy.sharding_constraint %115 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %117 = stablehlo.multiply %116, %86 : tensor<256x256xf32>
    %118 = sdy.sharding_constraint %117 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %119 = stablehlo.subtract %arg2, %118 : tensor<256x256xf32>
    %120 = sdy.sharding_constraint %119 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_19 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %122 = sdy.sharding_constraint %121 <@mesh, [{}]> : tensor<256xf32>
    %123 = stablehlo.multiply %122, %82 : tensor<256xf32>
    %124 = sdy.sharding_constraint %123 <@mesh, [{}]> : tensor<256xf32>
    %125 = stablehlo.subtract %arg3, %124 : tensor<256xf32>
    %126 = sdy.sharding_constraint %125 <@mesh, [{}]> : tensor<256xf32>
    %cst_20 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %128 = sdy.sharding_constraint %127 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %129 = stablehlo.multiply %128, %70 : tensor<256x256xf32>
    %130 = sdy.sharding_constraint %129 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %131 = stablehlo.subtract %arg4, %130 : tensor<256x256xf32>
    %132 = sdy.sharding_constraint %131 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_21 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %134 = sdy.sharding_constraint %133 <@mesh, [{}]> : tensor<256xf32>
    %135 = stablehlo.multiply %134, %66 : tensor<256xf32>
    %136 = sdy.sharding_constraint %135 <@mesh, [{}]> : tensor<256xf32>
    %137 = stablehlo.subtract %arg5, %136 : tensor<256xf32>
    %138 = sdy.sharding_constraint %137 <@mesh, [{}]> : tensor<256xf32>
    return %108, %114, %120, %126, %132, %138, %48 : tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<32x256xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<32x256xf32>
    return %3 : tensor<32x256xf32>
  }
}
