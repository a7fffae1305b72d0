// A kernel that never ends, as a student's edit can make one (a loop whose counter never moves).
// Run with --timeout: the watchdog must stop the row, name it and exit 3, freeing the GPU.
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
  while (true) {
  }
}
