"""The system-call filter, installed in a child interpreter (it cannot be removed once set)."""
import os
import platform
import subprocess
import sys
import textwrap
import unittest

PROBE = textwrap.dedent("""
    import ctypes, os, subprocess, threading
    from crashprobe import syscall_filter
    note = syscall_filter.install()
    libc = ctypes.CDLL(None, use_errno=True)
    def refused(rc):
        return "refused" if rc != 0 and ctypes.get_errno() == 1 else "allowed"
    print("note", note or "-")
    print("ptrace", refused(libc.ptrace(16, 1, None, None)))
    print("unshare", refused(libc.unshare(0x10000000)))
    print("mount", refused(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
    t = threading.Thread(target=lambda: None); t.start(); t.join(); print("thread", "ok")
    print("spawn", subprocess.run(["true"]).returncode)
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    print("fork", os.WEXITSTATUS(os.waitpid(pid, 0)[1]))
""")


@unittest.skipUnless(sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64"), "Linux on x86_64 or aarch64")
class SyscallFilter(unittest.TestCase):
    def test_refuses_ptrace_namespaces_and_mounts_and_keeps_threads_and_processes(self):
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                             env={"PYTHONPATH": here, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}, check=True).stdout
        lines = dict(line.split(" ", 1) for line in out.splitlines())
        self.assertEqual(lines, {"note": "-", "ptrace": "refused", "unshare": "refused", "mount": "refused",
                                 "thread": "ok", "spawn": "0", "fork": "7"})


if __name__ == "__main__":
    unittest.main()
