// Lesson 08, exercise 1 (starter): specialise the kernel at run time with a template argument.
//
// NVRTC compiles C++ templates, but a template is not a kernel until it is instantiated, and a
// C++ kernel's symbol is mangled. Ask NVRTC for the instance you want with a name expression
// (nvrtcAddNameExpression("saxpy_ilp<4>") before compiling, course::nvrtc::Program::
// add_name_expression), then look up its mangled name (nvrtcGetLoweredName, Program::lowered_name)
// and pass that to cuModuleGetFunction.
//
// TODO: write saxpy_ilp<kIlp>: out[i] = a * x[i] + y[i] with a grid-stride loop in which each
// thread handles kIlp elements per trip (i, i + stride, ..., i + (kIlp - 1) * stride), loading all
// of them before computing any, and finishing the elements a whole trip cannot cover. The
// parameters are the lesson kernel's: (float a, const float* x, const float* y, float* out,
// unsigned long long n). No extern "C": templates cannot have C linkage.
//
// Check it: ./scripts/check_exercise.sh 08 saxpy_template (PASS, or FAIL with the reason); hints:
// ./scripts/check_exercise.sh 08 saxpy_template --hint
template <int kIlp>
__global__ void saxpy_ilp(float a, const float* x, const float* y, float* out, unsigned long long n) {
  // TODO
}
