import { expect, test } from "bun:test";
import { isCompiledMain, passwdEntry, portProblem } from "./install.ts";
import { decodeAddress, describeHolders, isResolvedStub, parseSocketTable, socketInode } from "./ports.ts";

// lines as the kernel writes them (proc(5)): systemd-resolved's stub on 127.0.0.53:53, a wildcard :80
// listener, an established connection, and a bound UDP socket on [::]:53
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 3500007F:0035 00000000:0000 0A 00000000:00000000 00:00000000 00000000   991        0 18012 1 0000000000000000 100 0 0 10 5
   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 22100 1 0000000000000000 100 0 0 10 0
   2: 0100007F:0050 0100007F:D2F4 01 00000000:00000000 00:00000000 00000000     0        0 22311 1 0000000000000000 20 4 30 10 -1
`;
const UDP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  120: 00000000000000000000000000000000:0035 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000   990        0 30876 2 0000000000000000 0
  121: 0000000000000000FFFF00000100007F:0035 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000   990        0 30877 2 0000000000000000 0
`;

test("the kernel's hex addresses read as people write them", () => {
  expect(decodeAddress("3500007F")).toBe("127.0.0.53");
  expect(decodeAddress("00000000")).toBe("0.0.0.0");
  expect(decodeAddress("00000000000000000000000000000000")).toBe("::");
  expect(decodeAddress("00000000000000000000000001000000")).toBe("::1");
  expect(decodeAddress("0000000000000000FFFF00000100007F")).toBe("::ffff:127.0.0.1");
  expect(decodeAddress("B80D0120000000000000000001000000")).toBe("2001:db8::1");
  expect(decodeAddress("B80D0120010000000000000001000000")).toBe("2001:db8:0:1::1");
});

test("listening TCP and bound UDP sockets hold ports; a connection does not", () => {
  expect(parseSocketTable(TCP, "tcp")).toEqual([
    { proto: "tcp", address: "127.0.0.53", port: 53, inode: 18012 },
    { proto: "tcp", address: "0.0.0.0", port: 80, inode: 22100 },
  ]);
  expect(parseSocketTable(UDP6, "udp")).toEqual([
    { proto: "udp", address: "::", port: 53, inode: 30876 },
    { proto: "udp", address: "::ffff:127.0.0.1", port: 53, inode: 30877 },
  ]);
  expect(parseSocketTable("", "udp")).toEqual([]);
  expect(socketInode("socket:[18012]")).toBe(18012);
  expect(socketInode("pipe:[18012]")).toBeNull();
  expect(socketInode("/dev/null")).toBeNull();
});

test("the holders are named, systemd-resolved's stub gets its remedy, and Moat itself is no problem", () => {
  const stub = { proto: "udp" as const, address: "127.0.0.53", port: 53, inode: 1, pid: 412, name: "systemd-resolve" };
  const web = { proto: "tcp" as const, address: "0.0.0.0", port: 80, inode: 2, pid: 900, name: "lighttpd" };
  const unseen = { proto: "tcp" as const, address: "::", port: 80, inode: 3 };
  expect(isResolvedStub(stub)).toBe(true);
  expect(isResolvedStub(web)).toBe(false);
  expect(describeHolders([stub, web, unseen, web])).toEqual([
    "53/udp on 127.0.0.53: systemd-resolve (pid 412)",
    "80/tcp on 0.0.0.0: lighttpd (pid 900)",
    "80/tcp on ::: a process this user cannot see (run as root to name it)",
  ]);
  const p = portProblem([stub, web]);
  expect(p).toContain("  53/udp on 127.0.0.53: systemd-resolve (pid 412)\n  80/tcp on 0.0.0.0: lighttpd (pid 900)");
  expect(p).toContain("`sudo moat service resolved-stub off`");
  expect(portProblem([web])).not.toContain("resolved-stub");
  expect(portProblem([{ ...web, name: "moat" }])).toBeNull();
  expect(portProblem([])).toBeNull();
});

test("the user's ids come from /etc/passwd", () => {
  const passwd =
    "root:x:0:0:root:/root:/bin/bash\nmoatx:x:5:5::/:/bin/sh\nmoat:x:996:993:Moat DNS filter:/etc/moat:/usr/sbin/nologin\n";
  expect(passwdEntry(passwd, "moat")).toEqual({ uid: 996, gid: 993 });
  expect(passwdEntry(passwd, "pihole")).toBeNull();
});

test("only the compiled binary installs itself: run from source, the executable is Bun", () => {
  expect(isCompiledMain("/$bunfs/root/moat")).toBe(true);
  expect(isCompiledMain(Bun.main)).toBe(false);
  expect(isCompiledMain("/work/moat/src/main.ts")).toBe(false);
});
