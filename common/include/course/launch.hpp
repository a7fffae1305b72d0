// Choosing a grid for a grid-stride kernel.
//
// Teaches: a grid-stride loop works with any grid size, so the grid can be sized to the
// machine instead of the data: enough blocks to fill every SM to its occupancy limit, and no
// more. The occupancy calculator tells how many blocks of a kernel fit on one SM at a time,
// given its registers and shared memory.
#pragma once

#include <cstddef>
#include <string>

namespace course {

// The grid a launcher actually launched, for the report ("1,056 blocks of 256 threads"). A 2-D
// launch (one thread per pixel of an image) also has y extents; blocks and threads are then the
// x extents ("48x128 blocks of 32x8 threads"). 0 in both y fields: a 1-D launch.
struct LaunchShape {
  long long blocks = 0;
  int threads = 0;    // per block
  int blocks_y = 0;   // 2-D launches only
  int threads_y = 0;  // 2-D launches only: threads per block in y
  bool two_d() const { return blocks_y > 0 || threads_y > 0; }
  std::string describe() const;
};

// Blocks needed to give each of `n` elements its own thread (ceil(n / block)), at least 1.
std::size_t blocks_to_cover(std::size_t n, int block_size);

// Blocks that fit on the whole current GPU at once for `kernel` at `block_size`
// (SM count x resident blocks per SM), at least 1.
int resident_blocks(const void* kernel, int block_size, std::size_t dynamic_shared_bytes = 0);

// A grid for a grid-stride loop: the resident blocks, but no more than needed to cover n.
int grid_stride_blocks(const void* kernel, std::size_t n, int block_size);

}  // namespace course
