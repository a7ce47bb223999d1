// The MPI layer of the flows (dist.hpp): OpenMPI's C API, initialized only under mpirun.
// Receives poll with MPI_Iprobe and a short sleep, because OpenMPI's blocking receive spins a
// core at 100 %, which would take a core from the ranks that compute.
#include "mapwright/flows/dist.hpp"

// The C API only: without these, mpi.h also declares the removed C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mapwright::flows::dist {

namespace {
bool g_started = false;
int g_rank = 0;
int g_size = 1;

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (const char* e = std::getenv(v); e && *e) return true;
  return false;
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}
}  // namespace

void init(int* argc, char*** argv) {
  if (g_started || !launched_by_mpirun()) return;
  int provided = 0;
  // The exact mapper's threads never call MPI; only the main thread does.
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // A failed call returns an error (thrown above) instead of aborting every rank silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_started = true;
}

void finalize() {
  if (!g_started) return;
  MPI_Finalize();
  g_started = false;
}

void abort(int code) {
  if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

int rank() {
  return g_rank;
}

int size() {
  return g_size;
}

void send(int to, Tag tag, const nlohmann::json& msg) {
  const std::string text = msg.dump();
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, static_cast<int>(tag),
                 MPI_COMM_WORLD),
        "MPI_Send");
}

nlohmann::json receive(int& from, Tag& tag) {
  MPI_Status st;
  for (;;) {
    int ready = 0;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &st), "MPI_Iprobe");
    if (ready) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::vector<char> buf(static_cast<size_t>(n));
  check(MPI_Recv(buf.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  from = st.MPI_SOURCE;
  tag = static_cast<Tag>(st.MPI_TAG);
  return nlohmann::json::parse(buf.begin(), buf.end());
}

void farm(std::deque<size_t> todo, const std::function<nlohmann::json(int, size_t)>& work,
          const std::function<void(int, const nlohmann::json&)>& on_result,
          const std::function<bool()>& stop) {
  int active = size() - 1;  // ranks that have not said Done
  while (active > 0) {
    int from = 0;
    Tag tag{};
    const nlohmann::json m = receive(from, tag);
    if (tag == Tag::Done) {
      --active;
      continue;
    }
    if (tag == Tag::Result) on_result(from, m);
    // Asked before looking at `todo`, so a stop noted while the last items run is seen too.
    const bool stopping = stop();
    if (!stopping && !todo.empty()) {
      const size_t item = todo.front();
      todo.pop_front();
      send(from, Tag::Work, work(from, item));
    } else {
      send(from, Tag::Stop, nlohmann::json::object());
    }
  }
}

int serve_farm(const std::function<nlohmann::json(const nlohmann::json&)>& answer,
               const std::function<void()>& finish) {
  serve(answer);
  if (finish) finish();
  send(0, Tag::Done, nlohmann::json::object());
  return 0;
}

int serve(const std::function<nlohmann::json(const nlohmann::json&)>& answer) {
  send(0, Tag::Ready, nlohmann::json::object());
  for (;;) {
    int from = 0;
    Tag tag{};
    const nlohmann::json m = receive(from, tag);
    if (tag != Tag::Work) return 0;
    send(0, Tag::Result, answer(m));
  }
}

}  // namespace mapwright::flows::dist
