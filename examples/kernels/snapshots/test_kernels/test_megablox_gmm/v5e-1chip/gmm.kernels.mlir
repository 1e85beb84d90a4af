// kernel kernel#549b188737fc: Mosaic TPU
module {
  func.func @kernel(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<5xi32, #tpu.memory_space<smem>>, %arg4: memref<7xi32, #tpu.memory_space<smem>>, %arg5: memref<7xi32, #tpu.memory_space<smem>>, %arg6: memref<1xi32, #tpu.memory_space<smem>>, %arg7: memref<128x128xbf16, #tpu.memory_space<vmem>>, %arg8: memref<1x128x128xbf16, #tpu.memory_space<vmem>>, %arg9: memref<128x128xf32, #tpu.memory_space<vmem>>, %arg10: memref<128x128xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4, -9223372036854775808, 2>, scalar_prefetch = 4 : i64, scratch_operands = 1 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 128, 128>}, {transform_indices = @transform_1, window_bounds = array<i64: 1, 128, 128>}, {transform_indices = @transform_2, window_bounds = array<i64: 128, 128>}]} {
    %c0_i32 = arith.constant 0 : i32
    %0 = arith.cmpi eq, %arg2, %c0_i32 : i32
    %1 = arith.extui %0 : i1 to i32
    %c0_i32_0 = arith.constant 0 : i32
    %2 = arith.cmpi ne, %1, %c0_i32_0 : i32
    scf.if %2 {
      %cst = arith.constant 0.000000e+00 : f32
      %6 = vector.broadcast %cst : f32 to vector<128x128xf32>
      %c0 = arith.constant 0 : index
      %c0_2 = arith.constant 0 : index
      %7 = vector.load %arg10[%c0, %c0_2] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg10[%c0, %c0_2], %6 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
    } else {
    }
    %c1_i32 = arith.constant 1 : i32
    %3 = arith.cmpi eq, %arg2, %c1_i32 : i32
    %4 = arith.extui %3 : i1 to i32
    %c0_i32_1 = arith.constant 0 : i32
    %5 = arith.cmpi ne, %4, %c0_i32_1 : i32
    scf.if %5 {
      %c0 = arith.constant 0 : index
      %c0_2 = arith.constant 0 : index
      %6 = vector.load %arg7[%c0, %c0_2] : memref<128x128xbf16, #tpu.memory_space<vmem>>, vector<128x128xbf16>
      %c0_3 = arith.constant 0 : index
      %c0_4 = arith.constant 0 : index
      %c0_5 = arith.constant 0 : index
      %7 = vector.load %arg8[%c0_3, %c0_4, %c0_5] : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>
      %8 = vector.shape_cast %7 : vector<1x128x128xbf16> to vector<128x128xbf16>
      %c0_6 = arith.constant 0 : index
      %c0_7 = arith.constant 0 : index
      %9 = vector.load %arg10[%c0_6, %c0_7] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %cst = arith.constant dense<0.000000e+00> : vector<128x128xf32>
      %10 = tpu.matmul %6, %8, %cst {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs_hint = false} : vector<128x128xbf16>, vector<128x128xbf16>, vector<128x128xf32> -> vector<128x128xf32>
      %11 = arith.addf %9, %10 : vector<128x128xf32>
      %c0_8 = arith.constant 0 : index
      %c0_9 = arith.constant 0 : index
      %12 = vector.load %arg10[%c0_8, %c0_9] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg10[%c0_8, %c0_9], %11 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %13 = arith.index_cast %arg1 : i32 to index
      %14 = memref.load %arg4[%13] : memref<7xi32, #tpu.memory_space<smem>>
      %15 = arith.index_cast %14 : i32 to index
      %16 = memref.load %arg3[%15] : memref<5xi32, #tpu.memory_space<smem>>
      %c1_i32_10 = arith.constant 1 : i32
      %17 = arith.addi %14, %c1_i32_10 : i32
      %18 = arith.index_cast %17 : i32 to index
      %19 = memref.load %arg3[%18] : memref<5xi32, #tpu.memory_space<smem>>
      %20 = arith.index_cast %arg1 : i32 to index
      %21 = memref.load %arg5[%20] : memref<7xi32, #tpu.memory_space<smem>>
      %c128_i32 = arith.constant 128 : i32
      %22 = arith.muli %21, %c128_i32 : i32
      %23 = tpu.iota {dimensions = array<i32: 0>} : vector<128x128xi32>
      %24 = vector.broadcast %22 : i32 to vector<128x128xi32>
      %25 = arith.addi %23, %24 : vector<128x128xi32>
      %26 = vector.broadcast %16 : i32 to vector<128x128xi32>
      %27 = arith.cmpi sge, %25, %26 : vector<128x128xi32>
      %28 = vector.broadcast %19 : i32 to vector<128x128xi32>
      %29 = arith.cmpi slt, %25, %28 : vector<128x128xi32>
      %30 = arith.andi %27, %29 : vector<128x128xi1>
      %c0_11 = arith.constant 0 : index
      %c0_12 = arith.constant 0 : index
      %31 = vector.load %arg10[%c0_11, %c0_12] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %c0_13 = arith.constant 0 : index
      %c0_14 = arith.constant 0 : index
      %32 = vector.load %arg9[%c0_13, %c0_14] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %33 = arith.select %30, %31, %32 : vector<128x128xi1>, vector<128x128xf32>
      %c0_15 = arith.constant 0 : index
      %c0_16 = arith.constant 0 : index
      %34 = vector.load %arg9[%c0_15, %c0_16] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg9[%c0_15, %c0_16], %33 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
    } else {
      %c0 = arith.constant 0 : index
      %c0_2 = arith.constant 0 : index
      %6 = vector.load %arg7[%c0, %c0_2] : memref<128x128xbf16, #tpu.memory_space<vmem>>, vector<128x128xbf16>
      %c0_3 = arith.constant 0 : index
      %c0_4 = arith.constant 0 : index
      %c0_5 = arith.constant 0 : index
      %7 = vector.load %arg8[%c0_3, %c0_4, %c0_5] : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>
      %8 = vector.shape_cast %7 : vector<1x128x128xbf16> to vector<128x128xbf16>
      %c0_6 = arith.constant 0 : index
      %c0_7 = arith.constant 0 : index
      %9 = vector.load %arg10[%c0_6, %c0_7] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %cst = arith.constant dense<0.000000e+00> : vector<128x128xf32>
      %10 = tpu.matmul %6, %8, %cst {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs_hint = false} : vector<128x128xbf16>, vector<128x128xbf16>, vector<128x128xf32> -> vector<128x128xf32>
      %11 = arith.addf %9, %10 : vector<128x128xf32>
      %c0_8 = arith.constant 0 : index
      %c0_9 = arith.constant 0 : index
      %12 = vector.load %arg10[%c0_8, %c0_9] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg10[%c0_8, %c0_9], %11 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
    }
    return
  }
  func.func @transform_0(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<5xi32, #tpu.memory_space<smem>>, %arg4: memref<7xi32, #tpu.memory_space<smem>>, %arg5: memref<7xi32, #tpu.memory_space<smem>>, %arg6: memref<1xi32, #tpu.memory_space<smem>>) -> (i32, i32) {
    %0 = arith.index_cast %arg1 : i32 to index
    %1 = memref.load %arg5[%0] : memref<7xi32, #tpu.memory_space<smem>>
    %c0_i32 = arith.constant 0 : i32
    return %1, %arg2 : i32, i32
  }
  func.func @transform_1(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<5xi32, #tpu.memory_space<smem>>, %arg4: memref<7xi32, #tpu.memory_space<smem>>, %arg5: memref<7xi32, #tpu.memory_space<smem>>, %arg6: memref<1xi32, #tpu.memory_space<smem>>) -> (i32, i32, i32) {
    %0 = arith.index_cast %arg1 : i32 to index
    %1 = memref.load %arg4[%0] : memref<7xi32, #tpu.memory_space<smem>>
    %c0 = arith.constant 0 : index
    %2 = memref.load %arg6[%c0] : memref<1xi32, #tpu.memory_space<smem>>
    %3 = arith.subi %1, %2 : i32
    %c0_i32 = arith.constant 0 : i32
    return %3, %arg2, %arg0 : i32, i32, i32
  }
  func.func @transform_2(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<5xi32, #tpu.memory_space<smem>>, %arg4: memref<7xi32, #tpu.memory_space<smem>>, %arg5: memref<7xi32, #tpu.memory_space<smem>>, %arg6: memref<1xi32, #tpu.memory_space<smem>>) -> (i32, i32) {
    %0 = arith.index_cast %arg1 : i32 to index
    %1 = memref.load %arg5[%0] : memref<7xi32, #tpu.memory_space<smem>>
    %c0_i32 = arith.constant 0 : i32
    return %1, %arg0 : i32, i32
  }
}
