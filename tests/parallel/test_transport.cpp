// SUMMA's transport choice (parallel/transport.hpp) and its config key, mpi.transport.
#include "config/config.hpp"
#include "parallel/transport.hpp"

#include <gtest/gtest.h>

#include <string>

namespace miniapp::parallel {
namespace {

TransportFacts facts(bool ipc_capable, bool mpi_device_memory, bool one_node) {
  TransportFacts f;
  f.ipc_capable = ipc_capable;
  f.ipc_by_default = ipc_capable;
  f.mpi_device_memory = mpi_device_memory;
  f.one_node = one_node;
  return f;
}

TEST(Transport, AutoPrefersIpcThenCudaAwareMpiThenHost) {
  EXPECT_EQ(choose_transport("auto", facts(true, true, true)).transport, Transport::device_ipc);
  EXPECT_EQ(choose_transport("auto", facts(true, false, true)).transport, Transport::device_ipc);
  // several nodes: IPC does not reach them
  EXPECT_EQ(choose_transport("auto", facts(true, true, false)).transport, Transport::device_mpi);
  EXPECT_EQ(choose_transport("auto", facts(true, false, false)).transport, Transport::host);
  // host backends (and HIP) have no IPC here
  EXPECT_EQ(choose_transport("auto", facts(false, false, true)).transport, Transport::host);
  EXPECT_TRUE(choose_transport("auto", facts(false, false, false)).unavailable.empty());
}

TEST(Transport, HostIsAlwaysAvailable) {
  for (bool a : {false, true})
    for (bool b : {false, true})
      for (bool c : {false, true}) {
        const TransportChoice t = choose_transport("host", facts(a, b, c));
        EXPECT_EQ(t.transport, Transport::host);
        EXPECT_TRUE(t.unavailable.empty());
      }
}

TEST(Transport, ForcedIpcSaysWhyItCannotBeUsed) {
  EXPECT_EQ(choose_transport("device_ipc", facts(true, false, true)).transport,
            Transport::device_ipc);
  EXPECT_TRUE(choose_transport("device_ipc", facts(true, false, true)).unavailable.empty());
  EXPECT_NE(choose_transport("device_ipc", facts(false, false, true)).unavailable.find("cuda"),
            std::string::npos);
  EXPECT_NE(choose_transport("device_ipc", facts(true, true, false)).unavailable.find("one node"),
            std::string::npos);
}

TEST(Transport, ForcedDeviceMpiNeedsACudaAwareMpi) {
  // one node with IPC available: device_mpi is still what was asked for (to measure it)
  const TransportChoice t = choose_transport("device_mpi", facts(true, true, true));
  EXPECT_EQ(t.transport, Transport::device_mpi);
  EXPECT_TRUE(t.unavailable.empty());
  EXPECT_EQ(choose_transport("device_mpi", facts(false, true, false)).transport,
            Transport::device_mpi);
  const TransportChoice no = choose_transport("device_mpi", facts(true, false, true));
  EXPECT_NE(no.unavailable.find("CUDA-aware MPI"), std::string::npos) << no.unavailable;
}

TEST(Transport, HipIpcOnlyWhenAskedFor) {
  TransportFacts hip = facts(true, false, true);
  hip.ipc_by_default = false; // compiled, never run on an AMD GPU
  EXPECT_EQ(choose_transport("auto", hip).transport, Transport::host);
  EXPECT_EQ(choose_transport("device_ipc", hip).transport, Transport::device_ipc);
  EXPECT_TRUE(choose_transport("device_ipc", hip).unavailable.empty());
}

TEST(Transport, NamesAreTheConfigAndResultsWords) {
  EXPECT_STREQ(to_string(Transport::host), "host");
  EXPECT_STREQ(to_string(Transport::device_mpi), "device_mpi");
  EXPECT_STREQ(to_string(Transport::device_ipc), "device_ipc");
  EXPECT_THROW(choose_transport("nvlink", facts(true, true, true)), std::invalid_argument);
}

const char* kConfig = "name: t\n"
                      "mpi:\n"
                      "  transport: %s\n"
                      "cases:\n"
                      "  - family: matmul\n"
                      "    n: 8\n";

std::string with_transport(const std::string& value) {
  std::string text = kConfig;
  text.replace(text.find("%s"), 2, value);
  return text;
}

TEST(TransportConfig, DefaultIsAutoAndEveryNamedValueIsKept) {
  EXPECT_EQ(config::parse_config("t.yaml", "name: t\ncases:\n  - family: matmul\n    n: 8\n", {})
                .settings.transport,
            "auto");
  for (const char* v : {"auto", "host", "device_mpi", "device_ipc"})
    EXPECT_EQ(config::parse_config("t.yaml", with_transport(v), {}).settings.transport, v);
  EXPECT_EQ(config::parse_config("t.yaml", with_transport("auto"), {"mpi.transport=host"})
                .settings.transport,
            "host");
}

TEST(TransportConfig, UnknownValueIsRefusedAtItsPosition) {
  for (const char* v : {"nvlink", "device", "1", "[host]"}) {
    try {
      config::parse_config("t.yaml", with_transport(v), {});
      ADD_FAILURE() << v << " accepted";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("t.yaml:3:14: mpi.transport"), std::string::npos)
          << e.what();
    }
  }
}

} // namespace
} // namespace miniapp::parallel
