module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xbf16>, %arg1: tensor<128xbf16>, %arg2: tensor<128x512xbf16>, %arg3: tensor<512x128xbf16>, %arg4: tensor<128x128xbf16>, %arg5: tensor<128x128xbf16>, %arg6: tensor<128x128xbf16>, %arg7: tensor<128x128xbf16>, %arg8: tensor<8x16x128xbf16>) -> (tensor<128xbf16> {jax.result_info = "result[0]['ln1']"}, tensor<128xbf16> {jax.result_info = "result[0]['ln2']"}, tensor<128x512xbf16> {jax.result_info = "result[0]['w1']"}, tensor<512x128xbf16> {jax.result_info = "result[0]['w2']"}, tensor<128x128xbf16> {jax.result_info = "result[0]['wk']"}, tensor<128x128xbf16> {jax.result_info = "result[0]['wo']"}, tensor<128x128xbf16> {jax.result_info = "result[0]['wq']"}, tensor<128x128xbf16> {jax.result_info = "result[0]['wv']"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg8 : (tensor<8x16x128xbf16>) -> tensor<8x16x128xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xf32>, tensor<f32>) -> tensor<8x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<8x16x1xf32>
    %5 = stablehlo.convert %4 : (tensor<8x16x1xf32>) -> tensor<8x16x1xbf16>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %7 = stablehlo.subtract %arg8, %6 : tensor<8x16x128xbf16>
    %8 = stablehlo.multiply %7, %7 : tensor<8x16x128xbf16>
    %9 = stablehlo.convert %8 : (tensor<8x16x128xbf16>) -> tensor<8x16x128xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xf32>, tensor<f32>) -> tensor<8x16xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %13 = stablehlo.divide %11, %12 : tensor<8x16x1xf32>
    %14 = stablehlo.convert %13 : (tensor<8x16x1xf32>) -> tensor<8x16x1xbf16>
    %15 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %16 = stablehlo.subtract %arg8, %15 : tensor<8x16x128xbf16>
    %cst_3 = stablehlo.constant dense<9.983770e-07> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<8x16x1xbf16>
    %18 = stablehlo.add %14, %17 : tensor<8x16x1xbf16>
    %19 = stablehlo.rsqrt %18 : tensor<8x16x1xbf16>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %21 = stablehlo.multiply %16, %20 : tensor<8x16x128xbf16>
    %22 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<128xbf16>) -> tensor<1x1x128xbf16>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<1x1x128xbf16>) -> tensor<8x16x128xbf16>
    %24 = stablehlo.multiply %21, %23 : tensor<8x16x128xbf16>
    %25 = stablehlo.dot_general %24, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %26 = stablehlo.reshape %25 : (tensor<8x16x128xbf16>) -> tensor<8x16x4x32xbf16>
    %27 = stablehlo.dot_general %24, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %28 = stablehlo.reshape %27 : (tensor<8x16x128xbf16>) -> tensor<8x16x4x32xbf16>
    %29 = stablehlo.dot_general %24, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %30 = stablehlo.reshape %29 : (tensor<8x16x128xbf16>) -> tensor<8x16x4x32xbf16>
    %31 = stablehlo.dot_general %26, %28, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x4x32xbf16>, tensor<8x16x4x32xbf16>) -> tensor<8x4x16x16xbf16>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %32 = stablehlo.sqrt %cst_4 : tensor<f32>
    %33 = stablehlo.convert %32 : (tensor<f32>) -> tensor<bf16>
    %34 = stablehlo.broadcast_in_dim %33, dims = [] : (tensor<bf16>) -> tensor<8x4x16x16xbf16>
    %35 = stablehlo.divide %31, %34 : tensor<8x4x16x16xbf16>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %36 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %37 = call @tril(%36) : (tensor<16x16xi1>) -> tensor<16x16xi1>
    %cst_5 = stablehlo.constant dense<-3.389530e+38> : tensor<bf16>
    %38:2 = call @_where(%37, %35, %cst_5) : (tensor<16x16xi1>, tensor<8x4x16x16xbf16>, tensor<bf16>) -> (tensor<8x4x16x16xbf16>, tensor<8x4x16x16xi1>)
    %cst_6 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %39 = stablehlo.reduce(%38#0 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<8x4x16x16xbf16>, tensor<bf16>) -> tensor<8x4x16xbf16>
    %cst_7 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %40 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<bf16>) -> tensor<8x4x16xbf16>
    %41 = stablehlo.maximum %40, %39 : tensor<8x4x16xbf16>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<8x4x16xbf16>) -> tensor<8x4x16x1xbf16>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xbf16>) -> tensor<8x4x16x16xbf16>
    %44 = stablehlo.subtract %38#0, %43 : tensor<8x4x16x16xbf16>
    %45 = stablehlo.exponential %44 : tensor<8x4x16x16xbf16>
    %46 = stablehlo.convert %45 : (tensor<8x4x16x16xbf16>) -> tensor<8x4x16x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x1xf32>
    %49 = stablehlo.convert %48 : (tensor<8x4x16x1xf32>) -> tensor<8x4x16x1xbf16>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xbf16>) -> tensor<8x4x16x16xbf16>
    %51 = stablehlo.divide %45, %50 : tensor<8x4x16x16xbf16>
    %52 = stablehlo.multiply %49, %49 : tensor<8x4x16x1xbf16>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %53 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<bf16>) -> tensor<8x4x16x1xbf16>
    %54 = stablehlo.divide %53, %52 : tensor<8x4x16x1xbf16>
    %55 = stablehlo.dot_general %30, %51, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x16x4x32xbf16>, tensor<8x4x16x16xbf16>) -> tensor<8x4x32x16xbf16>
    %56 = stablehlo.transpose %55, dims = [0, 3, 1, 2] : (tensor<8x4x32x16xbf16>) -> tensor<8x16x4x32xbf16>
    %57 = stablehlo.reshape %56 : (tensor<8x16x4x32xbf16>) -> tensor<8x16x128xbf16>
    %58 = stablehlo.dot_general %57, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %59 = stablehlo.add %arg8, %58 : tensor<8x16x128xbf16>
    %60 = stablehlo.convert %59 : (tensor<8x16x128xbf16>) -> tensor<8x16x128xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.reduce(%60 init: %cst_10) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xf32>, tensor<f32>) -> tensor<8x16xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %cst_11 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %64 = stablehlo.divide %62, %63 : tensor<8x16x1xf32>
    %65 = stablehlo.convert %64 : (tensor<8x16x1xf32>) -> tensor<8x16x1xbf16>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %67 = stablehlo.subtract %59, %66 : tensor<8x16x128xbf16>
    %68 = stablehlo.multiply %67, %67 : tensor<8x16x128xbf16>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %69 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<8x16x128xbf16>
    %70 = stablehlo.multiply %69, %67 : tensor<8x16x128xbf16>
    %71 = stablehlo.convert %68 : (tensor<8x16x128xbf16>) -> tensor<8x16x128xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xf32>, tensor<f32>) -> tensor<8x16xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %cst_14 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %75 = stablehlo.divide %73, %74 : tensor<8x16x1xf32>
    %76 = stablehlo.convert %75 : (tensor<8x16x1xf32>) -> tensor<8x16x1xbf16>
    %77 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %78 = stablehlo.subtract %59, %77 : tensor<8x16x128xbf16>
    %cst_15 = stablehlo.constant dense<9.983770e-07> : tensor<bf16>
    %79 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<8x16x1xbf16>
    %80 = stablehlo.add %76, %79 : tensor<8x16x1xbf16>
    %81 = stablehlo.rsqrt %80 : tensor<8x16x1xbf16>
    %82 = stablehlo.divide %81, %80 : tensor<8x16x1xbf16>
    %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<bf16>
    %83 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<bf16>) -> tensor<8x16x1xbf16>
    %84 = stablehlo.multiply %83, %82 : tensor<8x16x1xbf16>
    %85 = stablehlo.broadcast_in_dim %81, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %86 = stablehlo.multiply %78, %85 : tensor<8x16x128xbf16>
    %87 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<128xbf16>) -> tensor<1x1x128xbf16>
    %88 = stablehlo.broadcast_in_dim %87, dims = [0, 1, 2] : (tensor<1x1x128xbf16>) -> tensor<8x16x128xbf16>
    %89 = stablehlo.multiply %86, %88 : tensor<8x16x128xbf16>
    %90 = stablehlo.dot_general %89, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x512xbf16>) -> tensor<8x16x512xbf16>
    %91 = stablehlo.multiply %90, %90 : tensor<8x16x512xbf16>
    %92 = stablehlo.multiply %91, %90 : tensor<8x16x512xbf16>
    %93 = stablehlo.multiply %90, %90 : tensor<8x16x512xbf16>
    %cst_17 = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %94 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %95 = stablehlo.multiply %94, %93 : tensor<8x16x512xbf16>
    %cst_18 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %96 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %97 = stablehlo.multiply %96, %92 : tensor<8x16x512xbf16>
    %98 = stablehlo.add %90, %97 : tensor<8x16x512xbf16>
    %cst_19 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %99 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %100 = stablehlo.multiply %99, %98 : tensor<8x16x512xbf16>
    %101 = stablehlo.tanh %100 : tensor<8x16x512xbf16>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %102 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %103 = stablehlo.subtract %102, %101 : tensor<8x16x512xbf16>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %104 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %105 = stablehlo.add %104, %101 : tensor<8x16x512xbf16>
    %cst_22 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %106 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %107 = stablehlo.multiply %106, %105 : tensor<8x16x512xbf16>
    %108 = stablehlo.multiply %90, %107 : tensor<8x16x512xbf16>
    %109 = stablehlo.dot_general %108, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16x512xbf16>, tensor<512x128xbf16>) -> tensor<8x16x128xbf16>
    %110 = stablehlo.add %59, %109 : tensor<8x16x128xbf16>
    %111 = stablehlo.convert %110 : (tensor<8x16x128xbf16>) -> tensor<8x16x128xf32>
    %112 = stablehlo.multiply %111, %111 : tensor<8x16x128xf32>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %114 = stablehlo.multiply %113, %111 : tensor<8x16x128xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %115 = stablehlo.reduce(%112 init: %cst_24) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<8x16x128xf32>, tensor<f32>) -> tensor<f32>
    %cst_25 = stablehlo.constant dense<1.638400e+04> : tensor<f32>
    %116 = stablehlo.divide %115, %cst_25 : tensor<f32>
    %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_27 = stablehlo.constant dense<1.638400e+04> : tensor<f32>
    %117 = stablehlo.divide %cst_26, %cst_27 : tensor<f32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [] : (tensor<f32>) -> tensor<8x16x128xf32>
    %119 = stablehlo.multiply %118, %114 : tensor<8x16x128xf32>
    %120 = stablehlo.convert %119 : (tensor<8x16x128xf32>) -> tensor<8x16x128xbf16>
    %121 = stablehlo.dot_general %120, %108, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<8x16x512xbf16>) -> tensor<128x512xbf16>
    %122 = stablehlo.transpose %121, dims = [1, 0] : (tensor<128x512xbf16>) -> tensor<512x128xbf16>
    %123 = stablehlo.dot_general %120, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<512x128xbf16>) -> tensor<8x16x512xbf16>
    %124 = stablehlo.multiply %90, %123 : tensor<8x16x512xbf16>
    %125 = stablehlo.multiply %123, %107 : tensor<8x16x512xbf16>
    %cst_28 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %126 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %127 = stablehlo.multiply %126, %124 : tensor<8x16x512xbf16>
    %128 = stablehlo.multiply %127, %103 : tensor<8x16x512xbf16>
    %129 = stablehlo.multiply %128, %101 : tensor<8x16x512xbf16>
    %130 = stablehlo.add %128, %129 : tensor<8x16x512xbf16>
    %cst_29 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %131 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %132 = stablehlo.multiply %131, %130 : tensor<8x16x512xbf16>
    %133 = stablehlo.add %125, %132 : tensor<8x16x512xbf16>
    %cst_30 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %134 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<bf16>) -> tensor<8x16x512xbf16>
    %135 = stablehlo.multiply %134, %132 : tensor<8x16x512xbf16>
    %136 = stablehlo.multiply %135, %95 : tensor<8x16x512xbf16>
    %137 = stablehlo.add %133, %136 : tensor<8x16x512xbf16>
    %138 = stablehlo.dot_general %137, %89, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x512xbf16>, tensor<8x16x128xbf16>) -> tensor<512x128xbf16>
    %139 = stablehlo.transpose %138, dims = [1, 0] : (tensor<512x128xbf16>) -> tensor<128x512xbf16>
    %140 = stablehlo.dot_general %137, %arg2, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x512xbf16>, tensor<128x512xbf16>) -> tensor<8x16x128xbf16>
    %141 = stablehlo.multiply %86, %140 : tensor<8x16x128xbf16>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %142 = stablehlo.reduce(%141 init: %cst_31) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x128xbf16>, tensor<bf16>) -> tensor<128xbf16>
    %143 = stablehlo.reshape %142 : (tensor<128xbf16>) -> tensor<1x1x128xbf16>
    %144 = stablehlo.broadcast_in_dim %87, dims = [0, 1, 2] : (tensor<1x1x128xbf16>) -> tensor<8x16x128xbf16>
    %145 = stablehlo.multiply %140, %144 : tensor<8x16x128xbf16>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %146 = stablehlo.reduce(%143 init: %cst_32) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x128xbf16>, tensor<bf16>) -> tensor<128xbf16>
    %147 = stablehlo.multiply %78, %145 : tensor<8x16x128xbf16>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %148 = stablehlo.reduce(%147 init: %cst_33) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xbf16>, tensor<bf16>) -> tensor<8x16xbf16>
    %149 = stablehlo.reshape %148 : (tensor<8x16xbf16>) -> tensor<8x16x1xbf16>
    %150 = stablehlo.broadcast_in_dim %81, dims = [0, 1, 2] : (tensor<8x16x1xbf16>) -> tensor<8x16x128xbf16>
    %151 = stablehlo.multiply %145, %150 : tensor<8x16x128xbf16>
    %152 = stablehlo.multiply %149, %84 : tensor<8x16x1xbf16>
    %153 = stablehlo.negate %151 : tensor<8x16x128xbf16>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %154 = stablehlo.reduce(%153 init: %cst_34) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xbf16>, tensor<bf16>) -> tensor<8x16xbf16>
    %155 = stablehlo.reshape %154 : (tensor<8x16xbf16>) -> tensor<8x16x1xbf16>
    %156 = stablehlo.add %120, %151 : tensor<8x16x128xbf16>
    %157 = stablehlo.convert %152 : (tensor<8x16x1xbf16>) -> tensor<8x16x1xf32>
    %cst_35 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %158 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %159 = stablehlo.divide %157, %158 : tensor<8x16x1xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %160 = stablehlo.reduce(%159 init: %cst_36) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %161 = stablehlo.broadcast_in_dim %160, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x128xf32>
    %162 = stablehlo.convert %161 : (tensor<8x16x128xf32>) -> tensor<8x16x128xbf16>
    %163 = stablehlo.multiply %162, %70 : tensor<8x16x128xbf16>
    %164 = stablehlo.negate %163 : tensor<8x16x128xbf16>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %165 = stablehlo.reduce(%164 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<8x16x128xbf16>, tensor<bf16>) -> tensor<8x16xbf16>
    %166 = stablehlo.reshape %165 : (tensor<8x16xbf16>) -> tensor<8x16x1xbf16>
    %167 = stablehlo.add %156, %163 : tensor<8x16x128xbf16>
    %168 = stablehlo.add %155, %166 : tensor<8x16x1xbf16>
    %169 = stablehlo.convert %168 : (tensor<8x16x1xbf16>) -> tensor<8x16x1xf32>
    %cst_38 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %170 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<8x16x1xf32>
    %171 = stablehlo.divide %169, %170 : tensor<8x16x1xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %172 = stablehlo.reduce(%171 init: %cst_39) applies stablehlo.add across dimensions = [2] : (tensor<8x16x1xf32>, tensor<f32>) -> tensor<8x16xf32>
    %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1] : (tensor<8x16xf32>) -> tensor<8x16x128xf32>
    %174 = stablehlo.convert %173 : (tensor<8x16x128xf32>) -> tensor<8x16x128xbf16>
    %175 = stablehlo.add %167, %174 : tensor<8x16x128xbf16>
    %176 = stablehlo.dot_general %175, %57, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<8x16x128xbf16>) -> tensor<128x128xbf16>
    %177 = stablehlo.transpose %176, dims = [1, 0] : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
    %178 = stablehlo.dot_general %175, %arg5, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %179 = stablehlo.reshape %178 : (tensor<8x16x128xbf16>) -> tensor<8x16x4x32xbf16>
    %180 = stablehlo.transpose %179, dims = [0, 2, 3, 1] : (tensor<8x16x4x32xbf16>) -> tensor<8x4x32x16xbf16>
    %181 = stablehlo.dot_general %180, %30, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x4x32x16xbf16>, tensor<8x16x4x32xbf16>) -> tensor<8x4x16x16xbf16>
    %182 = stablehlo.dot_general %180, %51, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<8x4x32x16xbf16>, tensor<8x4x16x16xbf16>) -> tensor<8x4x32x16xbf16>
    %183 = stablehlo.transpose %182, dims = [0, 3, 1, 2] : (tensor<8x4x32x16xbf16>) -> tensor<8x16x4x32xbf16>
    %184 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xbf16>) -> tensor<8x4x16x16xbf16>
    %185 = stablehlo.multiply %181, %184 : tensor<8x4x16x16xbf16>
    %186 = stablehlo.multiply %185, %45 : tensor<8x4x16x16xbf16>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %187 = stablehlo.reduce(%186 init: %cst_40) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x16xbf16>, tensor<bf16>) -> tensor<8x4x16xbf16>
    %188 = stablehlo.reshape %187 : (tensor<8x4x16xbf16>) -> tensor<8x4x16x1xbf16>
    %189 = stablehlo.negate %188 : tensor<8x4x16x1xbf16>
    %190 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2, 3] : (tensor<8x4x16x1xbf16>) -> tensor<8x4x16x16xbf16>
    %191 = stablehlo.divide %181, %190 : tensor<8x4x16x16xbf16>
    %192 = stablehlo.convert %189 : (tensor<8x4x16x1xbf16>) -> tensor<8x4x16x1xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %193 = stablehlo.reduce(%192 init: %cst_41) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x1xf32>, tensor<f32>) -> tensor<8x4x16xf32>
    %194 = stablehlo.broadcast_in_dim %193, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x16xf32>
    %195 = stablehlo.convert %194 : (tensor<8x4x16x16xf32>) -> tensor<8x4x16x16xbf16>
    %196 = stablehlo.add %191, %195 : tensor<8x4x16x16xbf16>
    %197 = stablehlo.multiply %196, %45 : tensor<8x4x16x16xbf16>
    %198 = call @_where_0(%38#1, %197) : (tensor<8x4x16x16xi1>, tensor<8x4x16x16xbf16>) -> tensor<8x4x16x16xbf16>
    %199 = stablehlo.broadcast_in_dim %33, dims = [] : (tensor<bf16>) -> tensor<8x4x16x16xbf16>
    %200 = stablehlo.divide %198, %199 : tensor<8x4x16x16xbf16>
    %201 = stablehlo.dot_general %200, %26, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x16xbf16>, tensor<8x16x4x32xbf16>) -> tensor<8x4x16x32xbf16>
    %202 = stablehlo.transpose %201, dims = [0, 2, 1, 3] : (tensor<8x4x16x32xbf16>) -> tensor<8x16x4x32xbf16>
    %203 = stablehlo.dot_general %200, %28, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x16xbf16>, tensor<8x16x4x32xbf16>) -> tensor<8x4x16x32xbf16>
    %204 = stablehlo.transpose %203, dims = [0, 2, 1, 3] : (tensor<8x4x16x32xbf16>) -> tensor<8x16x4x32xbf16>
    %205 = stablehlo.reshape %183 : (tensor<8x16x4x32xbf16>) -> tensor<8x16x128xbf16>
    %206 = stablehlo.dot_general %205, %24, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<8x16x128xbf16>) -> tensor<128x128xbf16>
    %207 = stablehlo.transpose %206, dims = [1, 0] : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
    %208 = stablehlo.dot_general %205, %arg7, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %209 = stablehlo.reshape %202 : (tensor<8x16x4x32xbf16>) -> tensor<8x16x128xbf16>
    %210 = stablehlo.dot_general %209, %24, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<8x16x128xbf16>) -> tensor<128x128xbf16>
    %211 = stablehlo.transpose %210, dims = [1, 0] : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
    %212 = stablehlo.dot_general %209, %arg4, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %213 = stablehlo.add %208, %212 : tensor<8x16x128xbf16>
    %214 = stablehlo.reshape %204 : (tensor<8x16x4x32xbf16>) -> tensor<8x16x128xbf16>
    %215 = stablehlo.dot_general %214, %24, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<8x16x128xbf16>) -> tensor<128x128xbf16>
    %216 = stablehlo.transpose %215, dims = [1, 0] : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
    %217 = stablehlo.dot_general %214, %arg6, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x16x128xbf16>, tensor<128x128xbf16>) -> tensor<8x16x128xbf16>
    %218 = stablehlo.add %213, %217 : tensor<8x16x128xbf16>
    %219 = stablehlo.multiply %21, %218 : tensor<8x16x128xbf16>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %220 = stablehlo.reduce(%219 init: %cst_42) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16x128xbf16>, tensor<bf16>) -> tensor<128xbf16>
    %221 = stablehlo.reshape %220 : (tensor<128xbf16>) -> tensor<1x1x128xbf16>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %222 = stablehlo.reduce(%221 init: %cst_43) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x128xbf16>, tensor<bf16>) -> tensor<128xbf16>
    %cst_44 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %223 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<bf16>) -> tensor<128xbf16>
    %224 = stablehlo.multiply %223, %222 : tensor<128xbf16>
    %225 = stablehlo.subtract %arg0, %224 : tensor<128xbf16>
    %cst_45 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %226 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<bf16>) -> tensor<128xbf16>
    %227 = stablehlo.multiply %226, %146 : tensor<128xbf16>
    %228 = stablehlo.subtract %arg1, %227 : tensor<128xbf16>
    %cst_46 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %229 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<bf16>) -> tensor<128x512xbf16>
    %230 = stablehlo.multiply %229, %139 : tensor<128x512xbf16>
    %231 = stablehlo.subtract %arg2, %230 : tensor<128x512xbf16>
    %cst_47 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %232 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<bf16>) -> tensor<512x128xbf16>
    %233 = stablehlo.multiply %232, %122 : tensor<512x128xbf16>
    %234 = stablehlo.subtract %arg3, %233 : tensor<512x128xbf16>
    %cst_48 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %235 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<bf16>) -> tensor<128x128xbf16>
    %236 = stablehlo.multiply %235, %211 : tensor<128x128xbf16>
    %237 = stablehlo.subtract %arg4, %236 : tensor<128x128xbf16>
    %cst_49 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %238 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<bf16>) -> tensor<128x128xbf16>
    %239 = stablehlo.multiply %238, %177 : tensor<128x128xbf16>
    %240 = stablehlo.subtract %arg5, %239 : tensor<128x128xbf16>
    %cst_50 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %241 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<bf16>) -> tensor<128x128xbf16>
    %242 = stablehlo.multiply %241, %216 : tensor<128x128xbf16>
    %243 = stablehlo.subtract %arg6, %242 : tensor<128x128xbf16>
    %cst_51 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %244 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<bf16>) -> tensor<128x128xbf16>
    %245 = stablehlo.multiply %244, %207 : tensor<128x128xbf16>
    %246 = stablehlo.subtract %arg7, %245 : tensor<128x128xbf16>
    return %225, %228, %231, %234, %237, %240, %243, %246, %116 : tensor<128xbf16>, tensor<128xbf16>, tensor<128x512xbf16>, tensor<512x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<f32>
  }
  func.func private @tril(%arg0: tensor<16x16xi1>) -> tensor<16x16xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<16x16xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x16xi32>
    %2 = stablehlo.add %0, %1 : tensor<16x16xi32>
    %3 = stablehlo.iota dim = 1 : tensor<16x16xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<16x16xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<16x16xi1>, tensor<16x16xi1>
    return %6 : tensor<16x16xi1>
  }
  func.func private @_where(%arg0: tensor<16x16xi1>, %arg1: tensor<8x4x16x16xbf16>, %arg2: tensor<bf16>) -> (tensor<8x4x16x16xbf16>, tensor<8x4x16x16xi1>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<16x16xi1>) -> tensor<8x4x16x16xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<8x4x16x16xbf16>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<8x4x16x16xi1>, tensor<8x4x16x16xbf16>
    return %2, %0 : tensor<8x4x16x16xbf16>, tensor<8x4x16x16xi1>
  }
  func.func private @_where_0(%arg0: tensor<8x4x16x16xi1>, %arg1: tensor<8x4x16x16xbf16>) -> tensor<8x4x16x16xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x4x16x16xbf16>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<8x4x16x16xi1>, tensor<8x4x16x16xbf16>
    return %1 : tensor<8x4x16x16xbf16>
  }
}
