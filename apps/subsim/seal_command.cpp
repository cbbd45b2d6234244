#include <iostream>
#include <stdexcept>

#include "commands.hpp"
#include "subsim/io/file_seal.hpp"

namespace subsim::cli {

int runSeal(const std::vector<std::string>& files) {
  // Every file is tried, so one bad name does not leave the others unsealed.
  int status = kExitOk;
  for (const std::string& path : files) {
    try {
      sealFile(path);
      std::cout << "sealed " << path << "\n";
    } catch (const std::runtime_error& e) {
      std::cerr << "subsim: seal: " << e.what() << "\n";
      status = kExitBadInput;
    }
  }
  return status;
}

}  // namespace subsim::cli
