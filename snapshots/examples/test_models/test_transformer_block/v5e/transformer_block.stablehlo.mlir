module @jit_transformer_block attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<128x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<512x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg4: tensor<128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg5: tensor<128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg6: tensor<128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg7: tensor<128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<2x16x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<2x16x128xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg8 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<2x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %6 = stablehlo.divide %3, %5 : tensor<2x16x1xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %10 = stablehlo.subtract %arg8, %9 : tensor<2x16x128xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %12 = stablehlo.multiply %11, %11 : tensor<2x16x128xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<2x16xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %20 = stablehlo.divide %17, %19 : tensor<2x16x1xf32>
    %21 = sdy.sharding_constraint %20 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %22 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %24 = stablehlo.subtract %arg8, %23 : tensor<2x16x128xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_3 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %28 = stablehlo.add %21, %27 : tensor<2x16x1xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %30 = stablehlo.rsqrt %29 : tensor<2x16x1xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %34 = stablehlo.multiply %25, %33 : tensor<2x16x128xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %36 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}, {}, {}]> : tensor<1x1x128xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x16x128xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %40 = stablehlo.multiply %35, %39 : tensor<2x16x128xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %42 = stablehlo.dot_general %41, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %44 = stablehlo.reshape %43 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %46 = stablehlo.dot_general %41, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %48 = stablehlo.reshape %47 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %50 = stablehlo.dot_general %41, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %52 = stablehlo.reshape %51 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %54 = stablehlo.dot_general %45, %49, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>) -> tensor<2x4x16x16xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %56 = stablehlo.sqrt %cst_4 : tensor<f32>
    %57 = stablehlo.convert %56 : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [] : (tensor<f32>) -> tensor<2x4x16x16xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %60 = stablehlo.divide %55, %59 : tensor<2x4x16x16xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %62 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %63 = sdy.sharding_constraint %62 <@mesh, [{}, {}]> : tensor<16x16xi1>
    %64 = call @tril(%63) : (tensor<16x16xi1>) -> tensor<16x16xi1>
    %cst_5 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %65 = call @_where(%64, %61, %cst_5) : (tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %66 = stablehlo.reduce(%65 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x4x16xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %70 = stablehlo.maximum %69, %67 : tensor<2x4x16xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x1xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %76 = stablehlo.subtract %65, %75 : tensor<2x4x16x16xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %78 = stablehlo.exponential %77 : tensor<2x4x16x16xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %80 = stablehlo.reduce(%79 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x1xf32>
    %84 = stablehlo.broadcast_in_dim %83, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %86 = stablehlo.divide %79, %85 : tensor<2x4x16x16xf32>
    %87 = sdy.sharding_constraint %86 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %88 = stablehlo.dot_general %53, %87, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4x32xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x32x16xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x32x16xf32>
    %90 = stablehlo.transpose %89, dims = [0, 3, 1, 2] : (tensor<2x4x32x16xf32>) -> tensor<2x16x4x32xf32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %92 = stablehlo.reshape %91 : (tensor<2x16x4x32xf32>) -> tensor<2x16x128xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %94 = stablehlo.dot_general %93, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %95 = sdy.sharding_constraint %94 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %96 = stablehlo.add %arg8, %95 : tensor<2x16x128xf32>
    %97 = sdy.sharding_constraint %96 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.reduce(%97 init: %cst_9) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{}, {}]> : tensor<2x16xf32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_10 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %104 = stablehlo.divide %101, %103 : tensor<2x16x1xf32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %106 = stablehlo.broadcast_in_dim %105, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %108 = stablehlo.subtract %97, %107 : tensor<2x16x128xf32>
    %109 = sdy.sharding_constraint %108 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %110 = stablehlo.multiply %109, %109 : tensor<2x16x128xf32>
    %111 = sdy.sharding_constraint %110 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %112 = stablehlo.reduce(%111 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %113 = sdy.sharding_constraint %112 <@mesh, [{}, {}]> : tensor<2x16xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %115 = sdy.sharding_constraint %114 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_12 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %118 = stablehlo.divide %115, %117 : tensor<2x16x1xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %120 = stablehlo.broadcast_in_dim %105, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %122 = stablehlo.subtract %97, %121 : tensor<2x16x128xf32>
    %123 = sdy.sharding_constraint %122 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_13 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %125 = sdy.sharding_constraint %124 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %126 = stablehlo.add %119, %125 : tensor<2x16x1xf32>
    %127 = sdy.sharding_constraint %126 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %128 = stablehlo.rsqrt %127 : tensor<2x16x1xf32>
    %129 = sdy.sharding_constraint %128 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %130 = stablehlo.broadcast_in_dim %129, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %131 = sdy.sharding_constraint %130 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %132 = stablehlo.multiply %123, %131 : tensor<2x16x128xf32>
    %133 = sdy.sharding_constraint %132 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %134 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %135 = sdy.sharding_constraint %134 <@mesh, [{}, {}, {}]> : tensor<1x1x128xf32>
    %136 = stablehlo.broadcast_in_dim %135, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x16x128xf32>
    %137 = sdy.sharding_constraint %136 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %138 = stablehlo.multiply %133, %137 : tensor<2x16x128xf32>
    %139 = sdy.sharding_constraint %138 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %140 = stablehlo.dot_general %139, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x512xf32>) -> tensor<2x16x512xf32>
    %141 = sdy.sharding_constraint %140 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %142 = stablehlo.multiply %141, %141 : tensor<2x16x512xf32>
    %143 = stablehlo.multiply %142, %141 : tensor<2x16x512xf32>
    %144 = sdy.sharding_constraint %143 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %146 = sdy.sharding_constraint %145 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %147 = stablehlo.multiply %146, %144 : tensor<2x16x512xf32>
    %148 = sdy.sharding_constraint %147 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %149 = stablehlo.add %141, %148 : tensor<2x16x512xf32>
    %150 = sdy.sharding_constraint %149 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %152 = sdy.sharding_constraint %151 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %153 = stablehlo.multiply %152, %150 : tensor<2x16x512xf32>
    %154 = sdy.sharding_constraint %153 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %155 = stablehlo.tanh %154 : tensor<2x16x512xf32>
    %156 = sdy.sharding_constraint %155 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %158 = sdy.sharding_constraint %157 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %159 = stablehlo.add %158, %156 : tensor<2x16x512xf32>
    %160 = sdy.sharding_constraint %159 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %162 = sdy.sharding_constraint %161 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %163 = stablehlo.multiply %162, %160 : tensor<2x16x512xf32>
    %164 = sdy.sharding_constraint %163 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %165 = stablehlo.multiply %141, %164 : tensor<2x16x512xf32>
    %166 = sdy.sharding_constraint %165 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %167 = stablehlo.dot_general %166, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x512xf32>, tensor<512x128xf32>) -> tensor<2x16x128xf32>
    %168 = sdy.sharding_constraint %167 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %169 = stablehlo.add %97, %168 : tensor<2x16x128xf32>
    %170 = sdy.sharding_constraint %169 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    return %170 : tensor<2x16x128xf32>
  }
  func.func private @tril(%arg0: tensor<16x16xi1>) -> tensor<16x16xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<16x16xi32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x16xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x16xi32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x16xi32>
    %4 = stablehlo.add %1, %3 : tensor<16x16xi32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x16xi32>
    %6 = stablehlo.iota dim = 1 : tensor<16x16xi32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x16xi32>
    %8 = stablehlo.compare GE, %5, %7, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %9 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<16x16xi1>
    %11 = stablehlo.select %8, %arg0, %10 : tensor<16x16xi1>, tensor<16x16xi1>
    %12 = sdy.sharding_constraint %11 <@mesh, [{}, {}]> : tensor<16x16xi1>
    return %12 : tensor<16x16xi1>
  }
  func.func private @_where(%arg0: tensor<16x16xi1>, %arg1: tensor<2x4x16x16xf32>, %arg2: tensor<f32>) -> tensor<2x4x16x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<16x16xi1>) -> tensor<2x4x16x16xi1>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xi1>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x4x16x16xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %4 = stablehlo.select %1, %arg1, %3 : tensor<2x4x16x16xi1>, tensor<2x4x16x16xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    return %5 : tensor<2x4x16x16xf32>
  }
}
