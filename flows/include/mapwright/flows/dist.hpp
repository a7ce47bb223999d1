#pragma once
/// \file dist.hpp
/// Many processes, one result: when mapwright is started by `mpirun` (OpenMPI from Debian, C
/// API), the ranks share a flow's work items. Rank 0 coordinates: it owns the output folder and
/// every file in it, hands out one item at a time to whichever rank asks (dynamic load
/// balancing), gathers the answers and writes the results exactly as a single process would;
/// the other ranks compute. Started without mpirun, mapwright never touches MPI and runs as one
/// process. Messages are JSON texts.
///
/// `run` distributes its layers (each with the layer's RTL verifications) through farm(),
/// `study` its searcher runs, `codesign` and `sweep` their layer solves and RTL designs
/// (serve_farm() on the ranks, flows/codesign/solve_farm.cpp on rank 0); every other subcommand
/// under mpirun with more than one rank is refused.

#include <cstddef>
#include <deque>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace mapwright::flows::dist {

/// Initializes MPI when this process was started by mpirun (OMPI_COMM_WORLD_SIZE, PMIX_RANK or
/// PMI_SIZE in the environment); otherwise does nothing. Call once, first thing in main.
void init(int* argc, char*** argv);
/// Finalizes MPI if init started it. Call once before main returns.
void finalize();
/// This process's rank (0 without MPI).
int rank();
/// Number of ranks (1 without MPI).
int size();

/// Stops every rank of the job with exit code `code` (MPI_Abort); for rank 0's failures, which
/// the other ranks would otherwise wait on forever.
[[noreturn]] void abort(int code);

/// Message kinds. Done: a rank that farm() told to Stop has finished its last writes.
enum class Tag : int { Ready = 1, Work = 2, Result = 3, Stop = 4, Done = 5 };
/// Sends `msg` to rank `to`.
void send(int to, Tag tag, const nlohmann::json& msg);
/// Waits (without spinning a core) for the next message from any rank; returns it and sets
/// `from` and `tag`.
nlohmann::json receive(int& from, Tag& tag);

/// A rank other than 0: tells rank 0 it is ready, then answers every Work message with
/// `answer(message)` (sent back as the Result) until rank 0 says Stop; returns 0.
int serve(const std::function<nlohmann::json(const nlohmann::json&)>& answer);

/// Rank 0: the coordinator loop, for ranks that serve_farm(). Hands the work items of `todo`
/// one at a time, in order, to whichever rank asks (dynamic load balancing): `work(rank, item)`
/// is the Work message of `item` for `rank`; `on_result(rank, message)` takes each Result in as
/// it comes; `stop()`, asked each time a rank waits for work, ends the handing out when true
/// (Ctrl-C, a failure). Every rank is then told to Stop, and farm returns once each has said it
/// is Done, that is after its last write (serve_farm's `finish`), so that rank 0 may then
/// remove what the ranks wrote. Exceptions of the callbacks and of MPI propagate; the caller
/// stops every rank (abort) on one.
void farm(std::deque<size_t> todo, const std::function<nlohmann::json(int, size_t)>& work,
          const std::function<void(int, const nlohmann::json&)>& on_result,
          const std::function<bool()>& stop);
/// A rank other than 0 under farm(): serve(answer); then, told to stop, `finish()` (the rank's
/// last writes and clean-up; may be empty), then tells rank 0 it is Done; returns 0.
int serve_farm(const std::function<nlohmann::json(const nlohmann::json&)>& answer,
               const std::function<void()>& finish);

}  // namespace mapwright::flows::dist
