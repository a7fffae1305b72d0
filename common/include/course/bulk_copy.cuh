// One block's tile copied between global and shared memory by the SM's copy unit (Hopper's TMA).
//
// Teaches: on compute capability 9.0 and newer, `cp.async.bulk` moves a contiguous run of bytes
// from global into shared memory without any thread loading it: one thread issues the copy, the
// copy unit does it, and an mbarrier in shared memory counts the bytes as they land
// ("expect_tx"). The other threads wait on that barrier instead of on loads of their own. A
// block asks for its whole tile in one instruction, so the SM keeps many bytes in flight with
// few instructions and no registers: the shape a library's elementwise transform uses on sm_90.
// The way back works the same: once the block has written its results into shared memory, one
// thread hands the whole tile to the copy unit (`cp.async.bulk` from shared to global), and the
// stores leave the SM as full lines without a store instruction per thread.
//
// Rules the hardware sets: the global and shared addresses are 16-byte aligned, the size is a
// multiple of 16 bytes (and not zero), and one barrier phase counts fewer than 2^20 bytes (the
// lessons' tiles are at most 128 KiB). Speed asks for more: a shared tile that starts on a
// 128-byte boundary (a line), as CUB's transform aligns its tiles; declare it
// `extern __shared__ __align__(128)`. These helpers compile to the bulk copy only for sm_90
// and newer; a caller keeps a register-load path for older targets (see lesson 01's
// kernels/07_bulk_copy.cu).
#pragma once

#include <cuda/ptx>
#include <cuda/std/cstdint>

namespace course::bulk {

// Thread 0 of the block, once: prepares `arrived` for one phase that completes when `bytes` have
// landed, and starts copying them. Each (dst, src, size) must be 16-byte aligned / a multiple of 16.
// The block must __syncthreads() before any thread waits, so that every thread sees the barrier
// initialised.
struct Copy {
  void* dst;
  const void* src;
  unsigned bytes;
};

template <int kCopies>
__device__ __forceinline__ void start(cuda::std::uint64_t* arrived, const Copy (&copies)[kCopies]) {
#if __CUDA_ARCH__ >= 900
  namespace ptx = cuda::ptx;
  ptx::mbarrier_init(arrived, 1);                 // one arrival (ours, below) plus the bytes
  ptx::fence_proxy_async(ptx::space_shared);      // the copy unit sees the initialised barrier
  unsigned total = 0;
  for (const Copy& copy : copies) {
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, copy.dst, copy.src, copy.bytes, arrived);
    total += copy.bytes;
  }
  // Our arrival, with the bytes to wait for: the phase ends when all of them have landed.
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, arrived, total);
#else
  (void)arrived;
  (void)copies;
#endif
}

// Every thread: waits until the phase that start() began has completed (all bytes landed).
__device__ __forceinline__ void wait(cuda::std::uint64_t* arrived) {
#if __CUDA_ARCH__ >= 900
  while (!cuda::ptx::mbarrier_try_wait_parity(arrived, 0u)) {
  }
#else
  (void)arrived;
#endif
}

// Every thread that wrote into the tile, after its last write and before the block's
// __syncthreads(): makes the writes (made through the ordinary "generic proxy") visible to the
// copy unit (the "async proxy"), which store() below hands the tile to.
__device__ __forceinline__ void writes_visible_to_copy_unit() {
#if __CUDA_ARCH__ >= 900
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
#endif
}

// One thread, after that __syncthreads(): copies `bytes` from shared `src` to global `dst` and
// returns once the copy unit has read all of them from shared memory (the block may then exit or
// reuse the tile; the global writes complete on their own and are visible after the kernel).
// Same alignment and size rules as start().
__device__ __forceinline__ void store(void* dst, const void* src, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  namespace ptx = cuda::ptx;
  ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst, src, bytes);
  ptx::cp_async_bulk_commit_group();
  ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
#else
  (void)dst;
  (void)src;
  (void)bytes;
#endif
}

}  // namespace course::bulk
