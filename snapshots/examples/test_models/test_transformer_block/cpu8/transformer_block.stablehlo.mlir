module @jit_transformer_block attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<128x512xf32>, %arg3: tensor<512x128xf32>, %arg4: tensor<128x128xf32>, %arg5: tensor<128x128xf32>, %arg6: tensor<128x128xf32>, %arg7: tensor<128x128xf32>, %arg8: tensor<2x16x128xf32>) -> (tensor<2x16x128xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg8 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %5 = stablehlo.divide %2, %4 : tensor<2x16x1xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %7 = sdy.sharding_constraint %arg8 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %10 = stablehlo.subtract %7, %9 : tensor<2x16x128xf32>
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
    %22 = sdy.sharding_constraint %arg8 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %23 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %25 = stablehlo.subtract %22, %24 : tensor<2x16x128xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_3 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %29 = stablehlo.add %21, %28 : tensor<2x16x1xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %31 = stablehlo.rsqrt %30 : tensor<2x16x1xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %35 = stablehlo.multiply %26, %34 : tensor<2x16x128xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %37 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{}, {}, {}]> : tensor<1x1x128xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x16x128xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %41 = stablehlo.multiply %36, %40 : tensor<2x16x128xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %43 = stablehlo.dot_general %42, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %45 = stablehlo.reshape %44 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %47 = stablehlo.dot_general %42, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %49 = stablehlo.reshape %48 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
    %50 = sdy.sharding_constraint %49 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %51 = stablehlo.dot_general %42, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %52 = sdy.sharding_constraint %51 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %53 = stablehlo.reshape %52 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %55 = stablehlo.dot_general %46, %50, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>) -> tensor<2x4x16x16xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %57 = stablehlo.sqrt %cst_4 : tensor<f32>
    %58 = stablehlo.convert %57 : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [] : (tensor<f32>) -> tensor<2x4x16x16xf32>
    %60 = sdy.sharding_constraint %59 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %61 = stablehlo.divide %56, %60 : tensor<2x4x16x16xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %63 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %64 = sdy.sharding_constraint %63 <@mesh, [{}, {}]> : tensor<16x16xi1>
    %65 = call @tril(%64) : (tensor<16x16xi1>) -> tensor<16x16xi1>
    %cst_5 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %66 = call @_where(%65, %62, %cst_5) : (tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %67 = stablehlo.reduce(%66 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x4x16xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %71 = stablehlo.maximum %70, %68 : tensor<2x4x16xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x1xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %77 = stablehlo.subtract %66, %76 : tensor<2x4x16x16xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %79 = stablehlo.exponential %78 : tensor<2x4x16x16xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.reduce(%80 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}, {}, {}]> : tensor<2x4x16xf32>
    %83 = stablehlo.broadcast_in_dim %82, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x1xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %87 = stablehlo.divide %80, %86 : tensor<2x4x16x16xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x16x16xf32>
    %89 = stablehlo.dot_general %54, %88, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4x32xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x32x16xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{}, {}, {}, {}]> : tensor<2x4x32x16xf32>
    %91 = stablehlo.transpose %90, dims = [0, 3, 1, 2] : (tensor<2x4x32x16xf32>) -> tensor<2x16x4x32xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{}, {}, {}, {}]> : tensor<2x16x4x32xf32>
    %93 = stablehlo.reshape %92 : (tensor<2x16x4x32xf32>) -> tensor<2x16x128xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %95 = stablehlo.dot_general %94, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %97 = sdy.sharding_constraint %arg8 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %98 = stablehlo.add %97, %96 : tensor<2x16x128xf32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %100 = stablehlo.reduce(%99 init: %cst_9) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{}, {}]> : tensor<2x16xf32>
    %102 = stablehlo.broadcast_in_dim %101, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_10 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %106 = stablehlo.divide %103, %105 : tensor<2x16x1xf32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %108 = stablehlo.broadcast_in_dim %107, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %109 = sdy.sharding_constraint %108 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %110 = stablehlo.subtract %99, %109 : tensor<2x16x128xf32>
    %111 = sdy.sharding_constraint %110 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %112 = stablehlo.multiply %111, %111 : tensor<2x16x128xf32>
    %113 = sdy.sharding_constraint %112 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %114 = stablehlo.reduce(%113 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
    %115 = sdy.sharding_constraint %114 <@mesh, [{}, {}]> : tensor<2x16xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %cst_12 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %118 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %120 = stablehlo.divide %117, %119 : tensor<2x16x1xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %122 = stablehlo.broadcast_in_dim %107, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %123 = sdy.sharding_constraint %122 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %124 = stablehlo.subtract %99, %123 : tensor<2x16x128xf32>
    %125 = sdy.sharding_constraint %124 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %cst_13 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %127 = sdy.sharding_constraint %126 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %128 = stablehlo.add %121, %127 : tensor<2x16x1xf32>
    %129 = sdy.sharding_constraint %128 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %130 = stablehlo.rsqrt %129 : tensor<2x16x1xf32>
    %131 = sdy.sharding_constraint %130 <@mesh, [{}, {}, {}]> : tensor<2x16x1xf32>
    %132 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
    %133 = sdy.sharding_constraint %132 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %134 = stablehlo.multiply %125, %133 : tensor<2x16x128xf32>
    %135 = sdy.sharding_constraint %134 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %136 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %137 = sdy.sharding_constraint %136 <@mesh, [{}, {}, {}]> : tensor<1x1x128xf32>
    %138 = stablehlo.broadcast_in_dim %137, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x16x128xf32>
    %139 = sdy.sharding_constraint %138 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %140 = stablehlo.multiply %135, %139 : tensor<2x16x128xf32>
    %141 = sdy.sharding_constraint %140 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %142 = stablehlo.dot_general %141, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x512xf32>) -> tensor<2x16x512xf32>
    %143 = sdy.sharding_constraint %142 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %144 = stablehlo.multiply %143, %143 : tensor<2x16x512xf32>
    %145 = stablehlo.multiply %144, %143 : tensor<2x16x512xf32>
    %146 = sdy.sharding_constraint %145 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %148 = sdy.sharding_constraint %147 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %149 = stablehlo.multiply %148, %146 : tensor<2x16x512xf32>
    %150 = sdy.sharding_constraint %149 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %151 = stablehlo.add %143, %150 : tensor<2x16x512xf32>
    %152 = sdy.sharding_constraint %151 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %154 = sdy.sharding_constraint %153 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %155 = stablehlo.multiply %154, %152 : tensor<2x16x512xf32>
    %156 = sdy.sharding_constraint %155 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %157 = stablehlo.tanh %156 : tensor<2x16x512xf32>
    %158 = sdy.sharding_constraint %157 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %160 = sdy.sharding_constraint %159 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %161 = stablehlo.add %160, %158 : tensor<2x16x512xf32>
    %162 = sdy.sharding_constraint %161 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %163 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x16x512xf32>
    %164 = sdy.sharding_constraint %163 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %165 = stablehlo.multiply %164, %162 : tensor<2x16x512xf32>
    %166 = sdy.sharding_constraint %165 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %167 = stablehlo.multiply %143, %166 : tensor<2x16x512xf32>
    %168 = sdy.sharding_constraint %167 <@mesh, [{}, {}, {}]> : tensor<2x16x512xf32>
    %169 = stablehlo.dot_general %168, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x512xf32>, tensor<512x128xf32>) -> tensor<2x16x128xf32>
    %170 = sdy.sharding_constraint %169 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    %171 = stablehlo.add %99, %170 : tensor<2x16x128xf32>
    %172 = sdy.sharding_constraint %171 <@mesh, [{}, {}, {}]> : tensor<2x16x128xf32>
    return %172 : tensor<2x16x128xf32>
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
