// Hosts on this machine, for a sweep's link axis (LocalLauncher.cpp) and the scale-out tests
// (tests/e2e/NetworkScaleOutTest.cpp): each a network namespace with its own address, host name and
// interface, joined to the others by a bridge in a namespace of its own, as machines on one switch are.
// Links may be shaped with the token-bucket filter (tc tbf: netem is not available everywhere) and taken
// down. Needs root and iproute2; unavailableReason() says what is missing, for a test to skip by name
// and for the CLI's error.
//
// Everything is named after this process (wb<pid>…), so two processes never meet, and addresses come
// from 10.213.0.0/16, a private range nothing else here uses; the namespaces' traffic never leaves them.
// The destructor kills every process still in them and deletes them; a process that died before its
// destructor ran leaves namespaces whose pid is gone, and the next NetworkHosts deletes those first.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "process/ChildProcess.h"

namespace wb {

class NetworkHosts {
public:
    // "" when namespaces can be made here; otherwise why not, in words fit for GTEST_SKIP or an error.
    static std::string unavailableReason() {
        if (geteuid() != 0) return "network namespaces need root";
        if (std::system("command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 && "
                        "command -v unshare >/dev/null 2>&1") != 0)
            return "iproute2 (ip, tc) or util-linux (unshare) is not installed";
        const std::string probe = "wbprobe" + std::to_string(getpid());
        if (std::system(("ip netns add " + probe + " 2>/dev/null && ip netns del " + probe).c_str()) != 0)
            return "this kernel or container refuses new network namespaces";
        if (std::system("unshare --uts -- true 2>/dev/null") != 0)
            return "this kernel or container refuses a host name of a process's own (unshare --uts)";
        return {};
    }

    // `hosts` hosts on one bridge; `rate` (tc's notation, "100mbit") shapes every link both ways.
    explicit NetworkHosts(int hosts, const std::string& rate = "") : m_hosts(hosts) {
        static int made = 0;
        m_prefix = "wb" + std::to_string(getpid()) + "n" + std::to_string(made) + "h";
        m_subnet = 10 + (getpid() * 7 + made) % 240;  // 10.213.<subnet>.0/24
        ++made;
        removeLeftovers();
        try {
            sh("ip netns add " + switchName());
            sh(inSwitch() + "ip link add br0 type bridge && " + inSwitch() + "ip link set br0 up");
            for (int h = 0; h < hosts; ++h) {
                const std::string port = "p" + std::to_string(h);
                sh("ip netns add " + ns(h));
                // The pair is made in the host's namespace, then one end moves to the switch's.
                sh(in(h) + "ip link add eth0 type veth peer name " + port);
                sh(in(h) + "ip link set " + port + " netns " + switchName());
                sh(inSwitch() + "ip link set " + port + " master br0 && " + inSwitch() + "ip link set " +
                   port + " up");
                sh(in(h) + "ip addr add " + address(h) + "/24 dev eth0 && " + in(h) +
                   "ip link set eth0 up && " + in(h) + "ip link set lo up");
            }
            if (!rate.empty()) shape(rate);
        } catch (...) {
            removeAll();
            throw;
        }
    }
    ~NetworkHosts() { removeAll(); }
    NetworkHosts(const NetworkHosts&) = delete;
    NetworkHosts& operator=(const NetworkHosts&) = delete;

    int size() const { return m_hosts; }
    std::string address(int host) const {
        return "10.213." + std::to_string(m_subnet) + "." + std::to_string(host + 1);
    }
    std::string hostName(int host) const { return "host" + std::to_string(host); }
    static const char* interface() { return "eth0"; }

    // A command prefix that runs the rest of the line in the host's namespace, under its host name: the
    // process it starts keeps the pid (every step execs), so a caller can stop or kill it directly.
    std::string run(int host) const {
        return "ip netns exec " + ns(host) + " unshare --uts -- sh -c 'hostname " + hostName(host) +
               " && exec \"$@\"' sh ";
    }

    // Every link shaped to `rate` both ways (the host's side and the switch's side of each pair).
    void shape(const std::string& rate) {
        for (int h = 0; h < m_hosts; ++h) {
            const std::string tbf = " root tbf rate " + rate + " burst 256kb latency 50ms";
            sh(in(h) + "tc qdisc replace dev eth0" + tbf);
            sh(inSwitch() + "tc qdisc replace dev p" + std::to_string(h) + tbf);
        }
    }
    // Takes a host's link down (or up again): its sockets stay open, and nothing reaches them.
    void setLink(int host, bool up) {
        sh(inSwitch() + "ip link set p" + std::to_string(host) + (up ? " up" : " down"));
    }
    // Whether any process still runs in the host's namespace.
    bool anyProcessIn(int host) const { return !pidsIn(ns(host)).empty(); }

private:
    std::string ns(int host) const { return m_prefix + std::to_string(host); }
    std::string switchName() const { return m_prefix + "sw"; }
    std::string in(int host) const { return "ip netns exec " + ns(host) + " "; }
    std::string inSwitch() const { return "ip netns exec " + switchName() + " "; }

    static void sh(const std::string& command) {
        const std::string errors = "/tmp/wb-netns-error-" + std::to_string(getpid()) + ".txt";
        const int status = std::system((command + " 2>" + errors).c_str());
        std::string why;
        if (FILE* f = std::fopen(errors.c_str(), "r")) {
            char line[512];
            if (std::fgets(line, sizeof line, f)) why = line;
            std::fclose(f);
        }
        std::remove(errors.c_str());  // one file per process was left in /tmp for good
        if (status != 0) throw std::runtime_error("NetworkHosts: '" + command + "' failed: " + why);
    }
    static std::string output(const std::string& command) {
        std::string out;
        if (FILE* p = popen(command.c_str(), "r")) {
            char buf[4096];
            for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
            pclose(p);
        }
        return out;
    }
    static std::vector<pid_t> pidsIn(const std::string& name) {
        std::vector<pid_t> pids;
        std::istringstream in(output("ip netns pids " + name + " 2>/dev/null"));
        for (pid_t pid; in >> pid;) pids.push_back(pid);
        return pids;
    }
    static void remove(const std::string& name) {
        for (int round = 0; round < 50; ++round) {  // a process may fork while we kill: look again
            const auto pids = pidsIn(name);
            if (pids.empty()) break;
            for (const pid_t pid : pids) kill(pid, SIGKILL);
            usleep(20000);
        }
        std::system(("ip netns del " + name + " 2>/dev/null").c_str());
    }
    void removeAll() {
        for (int h = 0; h < m_hosts; ++h) remove(ns(h));
        remove(switchName());
    }
    // Namespaces of processes that died before their destructor: wb<pid>n…, whose pid is gone.
    static void removeLeftovers() {
        std::istringstream in(output("ip netns list 2>/dev/null"));
        for (std::string line; std::getline(in, line);) {
            const std::string name = line.substr(0, line.find(' '));
            if (name.rfind("wb", 0) != 0 || name.find('n', 2) == std::string::npos) continue;
            const std::string digits = name.substr(2, name.find('n', 2) - 2);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
            const pid_t owner = static_cast<pid_t>(std::stol(digits));
            if (owner != getpid() && kill(owner, 0) != 0) remove(name);
        }
    }

    int m_hosts = 0;
    int m_subnet = 0;
    std::string m_prefix;
};

}  // namespace wb
