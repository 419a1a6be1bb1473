"""A seccomp filter that refuses the system calls no crash run needs and an attacker wants.

bubblewrap's own init (pid 1 of the sandbox) runs as the harness's uid in the single shape, so
without this a run could ptrace it and stop it (the whole sandbox then hangs until the caller's
timeout), and as root it could try mounts and new namespaces. The filter is installed once in the
server, before any repository code loads; every run and child inherits it and cannot remove it.

Refused with EPERM: ptrace, process_vm_*, mount and the new mount API, pivot_root, unshare,
setns, clone with a namespace flag, kernel modules, kexec, bpf, perf_event_open, userfaultfd,
the key ring and file handles. clone3 gets ENOSYS, so the C library falls back to clone (whose
flags the filter can read). Any other architecture's calling convention (x86_64's int 0x80 or
x32) is refused outright.
"""
import ctypes
import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# Numbers of the new mount API are the same on every architecture.
_MOUNT_API = [428, 429, 430, 431, 432, 433, 442]

_SYSCALLS = {
    "x86_64": {
        "refused": [101, 310, 311, 165, 166, 155, 272, 308, 175, 176, 313, 246, 320, 321, 298, 323,
                    248, 249, 250, 303, 304] + _MOUNT_API,
        "clone": 56,
        "clone3": 435,
    },
    "aarch64": {
        "refused": [117, 270, 271, 40, 39, 41, 97, 268, 105, 106, 273, 104, 294, 280, 241, 282,
                    217, 218, 219, 264, 265] + _MOUNT_API,
        "clone": 220,
        "clone3": 435,
    },
}

_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_X32_BIT = 0x40000000

_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _ERRNO, _EPERM, _ENOSYS = 0x7FFF0000, 0x00050000, 1, 38
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def _program(arch: int, refused, clone: int, clone3: int):
    """The filter as (code, jt, jf, k) tuples. Jump targets are resolved at the end."""
    deny, nosys, allow = "deny", "nosys", "allow"
    body = [
        (_LD_W_ABS, 0, 0, 4),                      # seccomp_data.arch
        (_JEQ_K, "next", deny, arch),
        (_LD_W_ABS, 0, 0, 0),                      # seccomp_data.nr
        (_JGE_K, deny, "next", _X32_BIT),
        (_JEQ_K, nosys, "next", clone3),
    ]
    body += [(_JEQ_K, deny, "next", number) for number in refused]
    body += [
        (_JEQ_K, "next", allow, clone),
        (_LD_W_ABS, 0, 0, 16),                     # low half of clone's flags
        (_JSET_K, deny, allow, _CLONE_NAMESPACES),
    ]
    labels = {allow: len(body), deny: len(body) + 1, nosys: len(body) + 2}
    body += [(_RET_K, 0, 0, _ALLOW), (_RET_K, 0, 0, _ERRNO | _EPERM), (_RET_K, 0, 0, _ERRNO | _ENOSYS)]

    def offset(at: int, target) -> int:
        if target == "next" or target == 0:
            return 0
        return labels[target] - at - 1

    return [(code, offset(i, jt), offset(i, jf), k) for i, (code, jt, jf, k) in enumerate(body)]


def install() -> str:
    """Installs the filter; returns a note for the review when it could not be installed."""
    machine = platform.machine()
    table = _SYSCALLS.get(machine)
    if table is None:
        return f"no system-call filter on this architecture ({machine}): ptrace and mounts rest on the sandbox alone"
    program = _program(_AUDIT_ARCH[machine], table["refused"], table["clone"], table["clone3"])
    raw = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program), ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return f"the system-call filter could not be installed (errno {ctypes.get_errno()}): ptrace and mounts rest on the sandbox alone"
    return ""
