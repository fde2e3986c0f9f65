// host/: the only code that touches the Linux host. Higher layers take a `Host` (LinuxHost for real,
// FakeHost in unit tests) through their constructors.
export type { Host } from "./host.ts";
export { LinuxHost, removeAllStateDir, sweepStateDir, type LinuxHostOptions } from "./linux.ts";
export { FakeHost, type ExecHandler, type FakeHostOptions } from "./fake.ts";
export { CommandError, HostExec, RecordingExec, type DetachedOptions, type DetachedProcess, type Exec, type RecordedCall, type RunOptions, type RunResult } from "./exec.ts";
export { DEFAULT_PREFIX, HostSpecError, MAX_IFNAME, Names } from "./names.ts";
export type { Owned } from "./context.ts";
export type { BridgeSpec, LinkEnd, RouteSpec, VethSpec } from "./links.ts";
export { natTable, natTableName, type NatSpec } from "./nat.ts";
export type { OverlaySpec } from "./mounts.ts";
export type { ProcessSpec, ProcessStatus } from "./processes.ts";
export type { TableRef } from "./nft.ts";
export {
  renderApplyTable,
  renderReplaceSets,
  renderTable,
  type CtState,
  type NftAddr,
  type NftChain,
  type NftFamily,
  type NftHook,
  type NftRule,
  type NftSet,
  type NftTable,
  type NftVerdict,
  type SetContents,
} from "./nft-render.ts";
export type { MachineNetwork, MachineSpec, SshdSpec } from "./machine.ts";
export { MachineBootError, MachineNotFoundError, MachineNotReadyError, type MachineInfo, type MachineInterface, type StatusOptions } from "./machine-status.ts";
export { MachineSummaries, type MachineState, type MachineSummary, type MachineSummariesOptions } from "./machine-summaries.ts";
export { renderSshdConfig, type HostKeyType, type SshdOptionValue } from "./machine-files.ts";
export type { HostRecord, RecordKind } from "./records.ts";
export { HostLeakError, isEmpty, type HostInventory, type SweepOptions, type SweepReport } from "./sweep.ts";
export { addressOf, contains, familyOf, minimalCidrs, normalizeCidr, parseCidr } from "./cidr.ts";
export type { ProcessRef } from "./procs.ts";
