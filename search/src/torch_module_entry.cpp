// The torch module's one exported symbol: the table of its factories, looked up by the search
// library's loader (torch_module_loader.cpp) with dlsym. Everything else in the module is
// hidden (built with hidden visibility), so its copies of the search helpers it links never
// interpose on the program's.
#include "torch_module.hpp"

extern "C" __attribute__((visibility("default"))) const mapwright::search::detail::TorchModuleApi*
mapwright_torch_module() {
  using namespace mapwright::search::detail;
  static const TorchModuleApi api{kTorchModuleAbi, &make_torch_learner, &make_torch_ppo_box,
                                  &make_torch_joint_critic};
  return &api;
}
