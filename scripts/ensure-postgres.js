// Before the tests that need PostgreSQL: make sure its server binaries are on this machine (the tests
// start their own throwaway server from them). Uses PG_BIN or /usr/lib/postgresql/N/bin; as root on
// Debian/Ubuntu it installs Debian's `postgresql` package, saying so (no server is left running);
// otherwise it stops with the exact command to run.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

function found() {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, 'initdb'));
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((v) => existsSync(join(root, v, 'bin', 'initdb')));
}

function run(command, args) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  return spawnSync(command, args, { stdio: 'inherit', env }).status === 0;
}

if (!found()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get') && !process.env.PG_BIN) {
    console.log("baton: the tests need PostgreSQL's server binaries; installing Debian's postgresql package (apt-get install postgresql)…");
    // policy-rc.d 101 keeps the package from starting a cluster of its own: the tests start their own.
    const ok =
      run('apt-get', ['update', '-qq']) &&
      run('sh', [
        '-c',
        'printf "#!/bin/sh\\nexit 101\\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && apt-get install -y -qq postgresql; status=$?; rm -f /usr/sbin/policy-rc.d; exit $status',
      ]);
    if (!ok || !found()) {
      console.error('baton: installing postgresql failed; install it yourself and run the tests again.');
      process.exit(1);
    }
  } else {
    console.error(
      'baton: the tests need PostgreSQL (initdb and postgres). Install it (Debian/Ubuntu: sudo apt-get install postgresql) or set PG_BIN.',
    );
    process.exit(1);
  }
}
