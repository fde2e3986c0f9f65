// The core kinds the VPN controller writes and reads (their one descriptor each is in client/builtins.ts).
export { Endpoints as EndpointsType, Pods, Services } from "../../../client/builtins.ts";
