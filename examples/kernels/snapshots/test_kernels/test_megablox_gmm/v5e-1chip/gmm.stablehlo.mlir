module @jit_gmm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<512x256xbf16>, %arg1: tensor<4x256x512xbf16>, %arg2: tensor<4xi32>) -> (tensor<512x512xf32> {jax.result_info = "result"}) {
    %0 = call @gmm(%arg0, %arg1, %arg2) : (tensor<512x256xbf16>, tensor<4x256x512xbf16>, tensor<4xi32>) -> tensor<512x512xf32>
    return %0 : tensor<512x512xf32>
  }
  func.func private @gmm(%arg0: tensor<512x256xbf16>, %arg1: tensor<4x256x512xbf16>, %arg2: tensor<4xi32>) -> tensor<512x512xf32> {
    %c = stablehlo.constant dense<0> : tensor<1xi32>
    %cst = stablehlo.constant dense<[0.000000e+00, 3.000000e+00]> : tensor<2xf32>
    %0 = stablehlo.reshape %c : (tensor<1xi32>) -> tensor<i32>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %1 = stablehlo.add %0, %c_0 : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.subtract %1, %c_1 : tensor<i32>
    %3 = call @cumsum(%arg2) : (tensor<4xi32>) -> tensor<4xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %5 = stablehlo.concatenate %4, %3, dim = 0 : (tensor<1xi32>, tensor<4xi32>) -> tensor<5xi32>
    %c_3 = stablehlo.constant dense<128> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %7 = stablehlo.add %3, %6 : tensor<4xi32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %9 = stablehlo.subtract %7, %8 : tensor<4xi32>
    %c_5 = stablehlo.constant dense<128> : tensor<i32>
    %10 = call @floor_divide(%9, %c_5) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %c_6 = stablehlo.constant dense<128> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %12 = stablehlo.multiply %10, %11 : tensor<4xi32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %14 = stablehlo.slice %3 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
    %15 = stablehlo.concatenate %13, %14, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
    %c_8 = stablehlo.constant dense<128> : tensor<i32>
    %16 = call @floor_divide(%15, %c_8) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %c_9 = stablehlo.constant dense<128> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %18 = stablehlo.multiply %16, %17 : tensor<4xi32>
    %19 = stablehlo.subtract %12, %18 : tensor<4xi32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %21 = stablehlo.compare EQ, %arg2, %20, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %22 = call @_where_1(%21, %c_11, %19) : (tensor<4xi1>, tensor<i32>, tensor<4xi32>) -> tensor<4xi32>
    %c_12 = stablehlo.constant dense<128> : tensor<i32>
    %23 = call @floor_divide(%22, %c_12) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %24 = stablehlo.iota dim = 0 : tensor<4xi32>
    %25 = call @_roll_static(%23) : (tensor<4xi32>) -> tensor<4xi32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %27 = "stablehlo.scatter"(%25, %26, %c_14) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
    %28 = call @cumsum(%27) : (tensor<4xi32>) -> tensor<4xi32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_15, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %c_16 = stablehlo.constant dense<0> : tensor<i32>
    %30 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %31 = stablehlo.compare LT, %28, %30, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_17 = stablehlo.constant dense<7> : tensor<i32>
    %32 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %33 = stablehlo.add %28, %32 : tensor<4xi32>
    %34 = stablehlo.select %31, %33, %28 : tensor<4xi1>, tensor<4xi32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %c_18 = stablehlo.constant dense<1> : tensor<i32>
    %36 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %37 = "stablehlo.scatter"(%29, %35, %36) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      %124 = stablehlo.add %arg3, %arg4 : tensor<i32>
      stablehlo.return %124 : tensor<i32>
    }) : (tensor<7xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<7xi32>
    %38 = call @cumsum_2(%37) : (tensor<7xi32>) -> tensor<7xi32>
    %c_19 = stablehlo.constant dense<1> : tensor<i32>
    %39 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %40 = stablehlo.subtract %38, %39 : tensor<7xi32>
    %41 = call @_take(%24, %40) : (tensor<4xi32>, tensor<7xi32>) -> tensor<7xi32>
    %42 = stablehlo.slice %5 [0:4] : (tensor<5xi32>) -> tensor<4xi32>
    %c_20 = stablehlo.constant dense<128> : tensor<i32>
    %43 = call @remainder(%42, %c_20) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %c_21 = stablehlo.constant dense<0> : tensor<i32>
    %44 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %45 = stablehlo.compare EQ, %43, %44, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_22 = stablehlo.constant dense<0> : tensor<i32>
    %46 = stablehlo.broadcast_in_dim %c_22, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %47 = stablehlo.compare EQ, %arg2, %46, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %48 = stablehlo.or %45, %47 : tensor<4xi1>
    %49 = stablehlo.slice %5 [0:4] : (tensor<5xi32>) -> tensor<4xi32>
    %c_23 = stablehlo.constant dense<128> : tensor<i32>
    %50 = call @floor_divide(%49, %c_23) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %c_24 = stablehlo.constant dense<4> : tensor<i32>
    %51 = call @_where_1(%48, %c_24, %50) : (tensor<4xi1>, tensor<i32>, tensor<4xi32>) -> tensor<4xi32>
    %52 = stablehlo.convert %51 : (tensor<4xi32>) -> tensor<4xf32>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %54 = call @_ptp(%cst) : (tensor<2xf32>) -> tensor<f32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %55 = stablehlo.compare EQ, %54, %cst_26, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %56 = stablehlo.slice %cst [0:1] : (tensor<2xf32>) -> tensor<1xf32>
    %57 = stablehlo.reshape %56 : (tensor<1xf32>) -> tensor<f32>
    %cst_27 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %58 = stablehlo.subtract %57, %cst_27 : tensor<f32>
    %59 = stablehlo.slice %cst [0:1] : (tensor<2xf32>) -> tensor<1xf32>
    %60 = stablehlo.reshape %59 : (tensor<1xf32>) -> tensor<f32>
    %61 = call @_where_6(%55, %58, %60) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %62 = call @_ptp(%cst) : (tensor<2xf32>) -> tensor<f32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.compare EQ, %62, %cst_28, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %64 = stablehlo.slice %cst [1:2] : (tensor<2xf32>) -> tensor<1xf32>
    %65 = stablehlo.reshape %64 : (tensor<1xf32>) -> tensor<f32>
    %cst_29 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %66 = stablehlo.add %65, %cst_29 : tensor<f32>
    %67 = stablehlo.slice %cst [1:2] : (tensor<2xf32>) -> tensor<1xf32>
    %68 = stablehlo.reshape %67 : (tensor<1xf32>) -> tensor<f32>
    %69 = call @_where_6(%63, %66, %68) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %70 = call @_linspace(%61, %69) : (tensor<f32>, tensor<f32>) -> tensor<5xf32>
    %71 = call @searchsorted(%70, %52) : (tensor<5xf32>, tensor<4xf32>) -> tensor<4xi32>
    %72 = stablehlo.slice %70 [4:5] : (tensor<5xf32>) -> tensor<1xf32>
    %73 = stablehlo.reshape %72 : (tensor<1xf32>) -> tensor<f32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %75 = stablehlo.compare EQ, %52, %74, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %c_30 = stablehlo.constant dense<4> : tensor<i32>
    %76 = call @_where_1(%75, %c_30, %71) : (tensor<4xi1>, tensor<i32>, tensor<4xi32>) -> tensor<4xi32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %c_32 = stablehlo.constant dense<0> : tensor<i32>
    %78 = stablehlo.broadcast_in_dim %c_32, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %79 = stablehlo.compare LT, %76, %78, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_33 = stablehlo.constant dense<5> : tensor<i32>
    %80 = stablehlo.broadcast_in_dim %c_33, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %81 = stablehlo.add %76, %80 : tensor<4xi32>
    %82 = stablehlo.select %79, %81, %76 : tensor<4xi1>, tensor<4xi32>
    %83 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %84 = "stablehlo.scatter"(%77, %83, %53) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %124 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %124 : tensor<f32>
    }) : (tensor<5xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5xf32>
    %85 = stablehlo.slice %84 [1:5] : (tensor<5xf32>) -> tensor<4xf32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %87 = stablehlo.add %85, %86 : tensor<4xf32>
    %88 = stablehlo.iota dim = 0 : tensor<4xi32>
    %89 = stablehlo.convert %87 : (tensor<4xf32>) -> tensor<4xi32>
    %90 = call @_roll_static(%89) : (tensor<4xi32>) -> tensor<4xi32>
    %c_35 = stablehlo.constant dense<0> : tensor<i32>
    %91 = stablehlo.broadcast_in_dim %c_35, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_36 = stablehlo.constant dense<0> : tensor<i32>
    %92 = "stablehlo.scatter"(%90, %91, %c_36) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
    %93 = call @cumsum(%92) : (tensor<4xi32>) -> tensor<4xi32>
    %c_37 = stablehlo.constant dense<0> : tensor<i32>
    %94 = stablehlo.broadcast_in_dim %c_37, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %c_38 = stablehlo.constant dense<0> : tensor<i32>
    %95 = stablehlo.broadcast_in_dim %c_38, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %96 = stablehlo.compare LT, %93, %95, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_39 = stablehlo.constant dense<7> : tensor<i32>
    %97 = stablehlo.broadcast_in_dim %c_39, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %98 = stablehlo.add %93, %97 : tensor<4xi32>
    %99 = stablehlo.select %96, %98, %93 : tensor<4xi1>, tensor<4xi32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %c_40 = stablehlo.constant dense<1> : tensor<i32>
    %101 = stablehlo.broadcast_in_dim %c_40, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %102 = "stablehlo.scatter"(%94, %100, %101) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      %124 = stablehlo.add %arg3, %arg4 : tensor<i32>
      stablehlo.return %124 : tensor<i32>
    }) : (tensor<7xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<7xi32>
    %103 = call @cumsum_2(%102) : (tensor<7xi32>) -> tensor<7xi32>
    %c_41 = stablehlo.constant dense<1> : tensor<i32>
    %104 = stablehlo.broadcast_in_dim %c_41, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %105 = stablehlo.subtract %103, %104 : tensor<7xi32>
    %106 = call @_take(%88, %105) : (tensor<4xi32>, tensor<7xi32>) -> tensor<7xi32>
    %107 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %108 = stablehlo.compare LT, %41, %107, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %109 = stablehlo.convert %108 : (tensor<7xi1>) -> tensor<7xi32>
    %c_42 = stablehlo.constant dense<0> : tensor<i32>
    %110 = stablehlo.reduce(%109 init: %c_42) applies stablehlo.add across dimensions = [0] : (tensor<7xi32>, tensor<i32>) -> tensor<i32>
    %111 = stablehlo.negate %110 : tensor<i32>
    %112 = call @_roll_dynamic(%41, %111) : (tensor<7xi32>, tensor<i32>) -> tensor<7xi32>
    %113 = stablehlo.negate %110 : tensor<i32>
    %114 = call @_roll_dynamic(%106, %113) : (tensor<7xi32>, tensor<i32>) -> tensor<7xi32>
    %115 = stablehlo.iota dim = 0 : tensor<4xi32>
    %116 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %117 = stablehlo.compare LE, %115, %116, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %118 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %119 = stablehlo.compare GE, %115, %118, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %120 = stablehlo.and %117, %119 : tensor<4xi1>
    %c_43 = stablehlo.constant dense<0> : tensor<i32>
    %121 = call @_where_10(%120, %23, %c_43) : (tensor<4xi1>, tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %c_44 = stablehlo.constant dense<0> : tensor<i32>
    %122 = stablehlo.reduce(%121 init: %c_44) applies stablehlo.add across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
    %123 = stablehlo.custom_call @tpu_custom_call(%122, %5, %112, %114, %c, %arg0, %arg1) {backend_config = "{\22custom_call_config\22: {\22body\22: \22kernel:kernel#549b188737fc\22, \22cost_estimate\22: {\0A\22bytes_accessed\22:3932160,\0A\22flops\22:134217728,\0A\22remote_bytes_transferred\22:0,\0A\22transcendentals\22:0\0A}, \22serialization_format\22: 1, \22needs_layout_passes\22: true}}", kernel_name = "kernel", mhlo.frontend_attributes = {kernel_metadata = "{}"}, operand_layouts = [dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<i32>, tensor<5xi32>, tensor<7xi32>, tensor<7xi32>, tensor<1xi32>, tensor<512x256xbf16>, tensor<4x256x512xbf16>) -> tensor<512x512xf32>
    return %123 : tensor<512x512xf32>
  }
  func.func private @cumsum(%arg0: tensor<4xi32>) -> tensor<4xi32> {
    %0 = call @cumsum_0(%arg0) : (tensor<4xi32>) -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func private @cumsum_0(%arg0: tensor<4xi32>) -> tensor<4xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    return %1 : tensor<4xi32>
  }
  func.func private @floor_divide(%arg0: tensor<4xi32>, %arg1: tensor<i32>) -> tensor<4xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.divide %arg0, %1 : tensor<4xi32>
    %3 = stablehlo.sign %arg0 : tensor<4xi32>
    %4 = stablehlo.sign %0 : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %8 = stablehlo.remainder %arg0, %7 : tensor<4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %11 = stablehlo.and %6, %10 : tensor<4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %13 = stablehlo.subtract %2, %12 : tensor<4xi32>
    %14 = call @_where(%11, %13, %2) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    return %14 : tensor<4xi32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xi32>, %arg2: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func private @_where_1(%arg0: tensor<4xi1>, %arg1: tensor<i32>, %arg2: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<4xi1>, tensor<4xi32>
    return %2 : tensor<4xi32>
  }
  func.func private @_roll_static(%arg0: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.slice %arg0 [3:4] : (tensor<4xi32>) -> tensor<1xi32>
    %1 = stablehlo.slice %arg0 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
    return %2 : tensor<4xi32>
  }
  func.func private @cumsum_2(%arg0: tensor<7xi32>) -> tensor<7xi32> {
    %0 = call @cumsum_3(%arg0) : (tensor<7xi32>) -> tensor<7xi32>
    return %0 : tensor<7xi32>
  }
  func.func private @cumsum_3(%arg0: tensor<7xi32>) -> tensor<7xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[6, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 7>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<7xi32>, tensor<i32>) -> tensor<7xi32>
    return %1 : tensor<7xi32>
  }
  func.func private @_take(%arg0: tensor<4xi32>, %arg1: tensor<7xi32>) -> tensor<7xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<7xi32>
    %4 = call @_where_4(%1, %3, %arg1) : (tensor<7xi1>, tensor<7xi32>, tensor<7xi32>) -> tensor<7xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<7xi32>) -> tensor<7x1xi32>
    %c_1 = stablehlo.constant dense<3> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<7x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<7x1xi32>, tensor<7x1xi32>) -> tensor<7x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<7x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<7x1xi32>, tensor<7x1xi32>) -> tensor<7x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<7x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [1] : (tensor<7x1xi1>, tensor<i1>) -> tensor<7xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<4xi32>, tensor<7x1xi32>) -> tensor<7xi32>
    %c_4 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %15 = stablehlo.select %12, %13, %14 : tensor<7xi1>, tensor<7xi32>
    return %15 : tensor<7xi32>
  }
  func.func private @_where_4(%arg0: tensor<7xi1>, %arg1: tensor<7xi32>, %arg2: tensor<7xi32>) -> tensor<7xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<7xi1>, tensor<7xi32>
    return %0 : tensor<7xi32>
  }
  func.func private @remainder(%arg0: tensor<4xi32>, %arg1: tensor<i32>) -> tensor<4xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where_5(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<4xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %12 = stablehlo.and %11, %6 : tensor<4xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %14 = stablehlo.add %4, %13 : tensor<4xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<4xi1>, tensor<4xi32>
    return %15 : tensor<4xi32>
  }
  func.func private @_where_5(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_ptp(%arg0: tensor<2xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.minimum across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.subtract %0, %1 : tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @_where_6(%arg0: tensor<i1>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @_linspace(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<5xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<4xf32>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.divide %0, %1 : tensor<4xf32>
    %3 = stablehlo.reshape %arg0 : (tensor<f32>) -> tensor<1xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.subtract %4, %2 : tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<4xf32>
    %8 = stablehlo.reshape %arg1 : (tensor<f32>) -> tensor<1xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %10 = stablehlo.multiply %9, %2 : tensor<4xf32>
    %11 = stablehlo.add %7, %10 : tensor<4xf32>
    %12 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %13 = stablehlo.concatenate %11, %12, dim = 0 : (tensor<4xf32>, tensor<1xf32>) -> tensor<5xf32>
    return %13 : tensor<5xf32>
  }
  func.func private @searchsorted(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> tensor<4xi32> {
    %0 = call @_searchsorted_scan_impl(%arg0, %arg1) : (tensor<5xf32>, tensor<4xf32>) -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func private @_searchsorted_scan_impl(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> tensor<4xi32> {
    %0 = call @_searchsorted_scan_impl_7(%arg0, %arg1) : (tensor<5xf32>, tensor<4xf32>) -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func private @_searchsorted_scan_impl_7(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> tensor<4xi32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %c_0 = stablehlo.constant dense<5> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c_1, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<5xf32>, tensor<4xf32>, tensor<i32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_6 = stablehlo.constant dense<3> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %4:2 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_4, %iterArg_5) : (tensor<5xf32>, tensor<4xf32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %5, %4#0, %4#1 : tensor<5xf32>, tensor<4xf32>, tensor<i32>, tensor<4xui32>, tensor<4xui32>
    }
    %3 = stablehlo.convert %2#4 : (tensor<4xui32>) -> tensor<4xi32>
    return %3 : tensor<4xi32>
  }
  func.func private @closed_call(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xui32>, %arg3: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>) {
    %0 = stablehlo.subtract %arg3, %arg2 : tensor<4xui32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %1 = call @floor_divide_8(%0, %c) : (tensor<4xui32>, tensor<i32>) -> tensor<4xui32>
    %2 = stablehlo.add %arg2, %1 : tensor<4xui32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4xui32>) -> tensor<4x1xui32>
    %4 = "stablehlo.gather"(%arg0, %3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<5xf32>, tensor<4x1xui32>) -> tensor<4x1xf32>
    %5 = stablehlo.reshape %4 : (tensor<4x1xf32>) -> tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.compare EQ, %arg1, %6, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.select %7, %8, %arg1 : tensor<4xi1>, tensor<4xf32>
    %10 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.select %10, %11, %9 : tensor<4xi1>, tensor<4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.compare EQ, %5, %13, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %16 = stablehlo.select %14, %15, %5 : tensor<4xi1>, tensor<4xf32>
    %17 = stablehlo.compare NE, %5, %5, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %19 = stablehlo.select %17, %18, %16 : tensor<4xi1>, tensor<4xf32>
    %20 = stablehlo.compare LT, %12, %19, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %21 = stablehlo.select %20, %arg2, %2 : tensor<4xi1>, tensor<4xui32>
    %22 = stablehlo.select %20, %2, %arg3 : tensor<4xi1>, tensor<4xui32>
    return %21, %22 : tensor<4xui32>, tensor<4xui32>
  }
  func.func private @floor_divide_8(%arg0: tensor<4xui32>, %arg1: tensor<i32>) -> tensor<4xui32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %2 = stablehlo.divide %arg0, %1 : tensor<4xui32>
    return %2 : tensor<4xui32>
  }
  func.func private @_roll_dynamic(%arg0: tensor<7xi32>, %arg1: tensor<i32>) -> tensor<7xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.slice %0 [0:1] : (tensor<1xi32>) -> tensor<1xi32>
    %2 = stablehlo.reshape %1 : (tensor<1xi32>) -> tensor<i32>
    %c = stablehlo.constant dense<7> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.maximum %c, %c_0 : tensor<i32>
    %4 = call @remainder_9(%2, %3) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %5 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<7xi32>, tensor<7xi32>) -> tensor<14xi32>
    %c_1 = stablehlo.constant dense<7> : tensor<i32>
    %6 = stablehlo.subtract %c_1, %4 : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.compare LT, %6, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<14> : tensor<i32>
    %8 = stablehlo.add %6, %c_3 : tensor<i32>
    %9 = stablehlo.select %7, %8, %6 : tensor<i1>, tensor<i32>
    %10 = stablehlo.dynamic_slice %5, %9, sizes = [7] : (tensor<14xi32>, tensor<i32>) -> tensor<7xi32>
    return %10 : tensor<7xi32>
  }
  func.func private @remainder_9(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare EQ, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = call @_where_5(%0, %c_0, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare NE, %2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %2, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.compare NE, %4, %5, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %7 = stablehlo.and %6, %3 : tensor<i1>
    %8 = stablehlo.add %2, %1 : tensor<i32>
    %9 = stablehlo.select %7, %8, %2 : tensor<i1>, tensor<i32>
    return %9 : tensor<i32>
  }
  func.func private @_where_10(%arg0: tensor<4xi1>, %arg1: tensor<4xi32>, %arg2: tensor<i32>) -> tensor<4xi32> {
    %0 = stablehlo.convert %arg2 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4xi1>, tensor<4xi32>
    return %2 : tensor<4xi32>
  }
}
