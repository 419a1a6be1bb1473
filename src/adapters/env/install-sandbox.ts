// The bubblewrap sandbox a virtual environment is built in. It sees the base
// interpreter, the system's libraries and CA certificates (read-only), the
// requirement files the App wrote (read-only), the environment folder being built
// (the only writable place besides a size-limited /tmp) and the index proxy's
// socket. No network of its own, no environment variables of the App, a user
// namespace with every capability dropped. Inside, a small forwarder relays
// 127.0.0.1 to the proxy socket; pip (or uv, when the App has it) gets that as its proxy.
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export const SANDBOX_PROXY_DIR = '/run/crashprobe-proxy';
export const SANDBOX_INPUT_DIR = '/run/crashprobe-input';
export const SANDBOX_UV = '/run/crashprobe-uv/uv';

export interface InstallPlanOptions {
  bwrap: string;
  /** The base interpreter: its executable and every folder it needs (PythonInfo.readOnlyPaths). */
  python: { executable: string; readOnlyPaths: string[] };
  /** The folder the venv is built in (bound writable at the same path, so its paths stay right). */
  envDir: string;
  /** Folder holding requirements.txt / constraints.txt (bound read-only). */
  inputDir: string;
  /** Folder holding the proxy's socket (bound read-only: connecting needs no write). */
  proxyDir: string;
  tmpBytes: number;
  /** uv on the host: bound read-only at SANDBOX_UV and used instead of pip (scriptConfig.uv says so). */
  uv?: string;
  /** What the script inside gets as its one argument. */
  scriptConfig: InstallScriptConfig;
}

export interface InstallScriptConfig {
  venv: string;
  index_url: string;
  trusted_host?: string;
  only_binary: boolean;
  constraints: boolean;
  max_file_bytes: number;
  memory_bytes: number;
  /** The uv binary inside the sandbox (SANDBOX_UV); absent: pip. */
  uv?: string;
}

/** /bin, /lib, ... as the host has them: a symlink into /usr stays a symlink, a real folder is bound read-only. */
function systemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  // The loader's cache and the public CA bundle; nothing else of /etc (no keys, no pip.conf, no passwd).
  for (const file of ['/etc/ld.so.cache', '/etc/ssl/certs', '/etc/pki/tls/certs', '/etc/ca-certificates']) {
    if (existsSync(file)) args.push('--ro-bind', file, file);
  }
  return args;
}

export function installPlan(options: InstallPlanOptions): { command: string; args: string[] } {
  const args = [
    '--unshare-user',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--hostname',
    'crashprobe-install',
    ...systemBinds(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(options.tmpBytes),
    '--tmpfs',
    '/tmp',
  ];
  for (const dir of options.python.readOnlyPaths) if (!dir.startsWith('/usr/') && dir !== '/usr') args.push('--ro-bind', dir, dir);
  args.push('--ro-bind', options.inputDir, SANDBOX_INPUT_DIR);
  args.push('--ro-bind', options.proxyDir, SANDBOX_PROXY_DIR);
  args.push('--bind', options.envDir, options.envDir);
  if (options.uv) args.push('--ro-bind', options.uv, SANDBOX_UV);
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: '/tmp',
    TMPDIR: '/tmp',
    USER: 'crashprobe',
    LOGNAME: 'crashprobe',
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    PIP_NO_INPUT: '1',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_CONFIG_FILE: '/dev/null',
  };
  for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value);
  args.push('--chdir', '/tmp', options.python.executable, '-I', '-c', INSTALL_SCRIPT, JSON.stringify(options.scriptConfig));
  return { command: options.bwrap, args };
}

/** Runs inside the sandbox: limits, the forwarder, the venv, pip, and one start of the new venv's interpreter. */
export const INSTALL_SCRIPT = String.raw`
import json, os, resource, socket, subprocess, sys, threading
cfg = json.loads(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (cfg["max_file_bytes"], cfg["max_file_bytes"]))
resource.setrlimit(resource.RLIMIT_AS, (cfg["memory_bytes"], cfg["memory_bytes"]))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

PROXY = "${SANDBOX_PROXY_DIR}/proxy.sock"
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
port = listener.getsockname()[1]

def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
        try:
            s.shutdown(how)
        except OSError:
            pass

def serve():
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(PROXY)
        except OSError:
            client.close()
            continue
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()

threading.Thread(target=serve, daemon=True).start()

def step(name, argv, env=None):
    print("crashprobe-install: " + name, file=sys.stderr, flush=True)
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, env=env)
    if result.returncode != 0:
        print("crashprobe-install: %s failed with exit code %d" % (name, result.returncode), file=sys.stderr, flush=True)
        sys.exit(3)

venv = cfg["venv"]
vpython = os.path.join(venv, "bin", "python")
step("venv", [sys.executable, "-m", "venv", "--without-pip", venv])
proxy_url = "http://127.0.0.1:%d" % port
common = ["--index-url", cfg["index_url"], "-r", "${SANDBOX_INPUT_DIR}/requirements.txt"]
if cfg["only_binary"]:
    common += ["--only-binary", ":all:"]
if cfg["constraints"]:
    common += ["-c", "${SANDBOX_INPUT_DIR}/constraints.txt"]
trusted = cfg.get("trusted_host")
if cfg.get("uv"):
    # uv takes its proxy from the environment; nothing of the App's uv configuration is read, and it never fetches an interpreter.
    uv_env = dict(os.environ, HTTP_PROXY=proxy_url, HTTPS_PROXY=proxy_url, ALL_PROXY=proxy_url, UV_NO_CONFIG="1",
                  UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1", UV_CACHE_DIR="/tmp/uv-cache")
    insecure = ["--allow-insecure-host", trusted] if trusted else []
    step("uv pip install", [cfg["uv"], "pip", "install", "--python", vpython, "--no-cache"] + common + insecure, uv_env)
else:
    try:
        import pip
        base_pip = tuple(int(x) for x in pip.__version__.split(".")[:2]) >= (22, 3)
    except Exception:
        base_pip = False
    if base_pip:
        pip_cmd = [sys.executable, "-m", "pip", "--python", vpython]
    else:
        step("ensurepip", [vpython, "-m", "ensurepip", "--default-pip"])
        pip_cmd = [vpython, "-m", "pip"]
    pip_flags = ["install", "--no-cache-dir", "--no-input", "--disable-pip-version-check", "--progress-bar", "off",
                 "--no-warn-script-location", "--proxy", proxy_url]
    step("pip install", pip_cmd + pip_flags + common + (["--trusted-host", trusted] if trusted else []))
# One start of the new interpreter, as the crash runs will start it (its .pth files run here, still contained).
step("check", [vpython, "-c", "import sys, site; print(sys.prefix)"])
print(json.dumps({"ok": True}))
`;

export function relativeToRoot(p: string): string {
  return path.relative('/', p);
}
