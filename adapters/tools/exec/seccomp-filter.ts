/**
 * The seccomp program every isolated command runs under (bubblewrap's `--seccomp`): no call may create a file,
 * or change its mode, with the setuid or setgid bit. The sandbox's files belong on the host to the user the
 * gateway runs as (root on many servers); such a bit on them would let any local user run a program as that
 * user. The kernel allows a file's owner to set the bits, and nosuid inside the sandbox does not reach outside
 * it, so the calls are refused. `openat2` (its mode sits behind a pointer the filter cannot read) and io_uring
 * (whose operations bypass seccomp) answer ENOSYS, as on an older kernel; callers fall back to `openat`.
 */

/** Classic BPF opcodes (linux/filter.h). */
const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_AT_LEAST = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JUMP_ANY_BIT = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K

const ALLOW = 0x7fff0000;
const KILL_PROCESS = 0x80000000;
const ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** Offsets in `struct seccomp_data`: the call's number, the architecture, then six 64-bit arguments. */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of argument `index` (little-endian: x86-64 and arm64). */
const argument = (index: number) => 16 + 8 * index;

const SET_ID_BITS = 0o6000;

interface Architecture {
  /** AUDIT_ARCH_* of linux/audit.h. */
  audit: number;
  /** Calls that take a mode, with the index of the mode argument. */
  modes: Array<[number, number]>;
  refused: number[];
  /** x86-64: numbers with this bit are the x32 ABI, another table the filter does not judge. */
  x32Bit?: number;
}

const SHARED_REFUSED = [437, 425, 426, 427]; // openat2, io_uring_setup, io_uring_enter, io_uring_register

const ARCHITECTURES: Partial<Record<NodeJS.Architecture, Architecture>> = {
  x64: {
    audit: 0xc000003e,
    // open, creat, chmod, fchmod, mknod, openat, mknodat, fchmodat, fchmodat2
    modes: [
      [2, 2],
      [85, 1],
      [90, 1],
      [91, 1],
      [133, 1],
      [257, 3],
      [259, 2],
      [268, 2],
      [452, 2],
    ],
    refused: SHARED_REFUSED,
    x32Bit: 0x40000000,
  },
  arm64: {
    audit: 0xc00000b7,
    // mknodat, fchmod, fchmodat, openat, fchmodat2
    modes: [
      [33, 2],
      [52, 1],
      [53, 2],
      [56, 3],
      [452, 2],
    ],
    refused: SHARED_REFUSED,
  },
};

type Instruction = [code: number, jumpTrue: number, jumpFalse: number, value: number];

function program(arch: Architecture): Instruction[] {
  const out: Instruction[] = [
    [LOAD_WORD, 0, 0, ARCH],
    // A call from another architecture's table (a 32-bit program) has other numbers: the process ends.
    [JUMP_EQUAL, 1, 0, arch.audit],
    [RETURN, 0, 0, KILL_PROCESS],
    [LOAD_WORD, 0, 0, NR],
  ];
  if (arch.x32Bit !== undefined) out.push([JUMP_AT_LEAST, 0, 1, arch.x32Bit], [RETURN, 0, 0, KILL_PROCESS]);
  for (const nr of arch.refused) out.push([JUMP_EQUAL, 0, 1, nr], [RETURN, 0, 0, ERRNO | ENOSYS]);
  for (const [nr, index] of arch.modes) {
    out.push(
      [JUMP_EQUAL, 0, 4, nr],
      [LOAD_WORD, 0, 0, argument(index)],
      [JUMP_ANY_BIT, 0, 1, SET_ID_BITS],
      [RETURN, 0, 0, ERRNO | EPERM],
      [RETURN, 0, 0, ALLOW],
    );
  }
  out.push([RETURN, 0, 0, ALLOW]);
  return out;
}

/** The compiled program for this machine (`struct sock_filter[]`), or undefined where the calls are not known. */
export function setIdFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const known = ARCHITECTURES[arch];
  if (!known) return undefined;
  const instructions = program(known);
  const buffer = Buffer.alloc(instructions.length * 8);
  instructions.forEach(([code, jumpTrue, jumpFalse, value], i) => {
    buffer.writeUInt16LE(code, i * 8);
    buffer.writeUInt8(jumpTrue, i * 8 + 2);
    buffer.writeUInt8(jumpFalse, i * 8 + 3);
    buffer.writeUInt32LE(value, i * 8 + 4);
  });
  return buffer;
}
