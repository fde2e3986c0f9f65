// Descriptors of Gardener's garden kinds, shared by every component that reads or writes them
// (controller manager, gardenlet, gardenctl, the landscape). Seed-side extension kinds live in
// src/extensions/resources.ts.
import { GROUP as CORE_GROUP, VERSION as CORE_VERSION, type Project, type Seed, type Shoot } from "../apis/gardencore/v1beta1/types.ts";
import { GROUP as OPERATIONS_GROUP, VERSION as OPERATIONS_VERSION, type Bastion } from "../apis/operations/v1alpha1/types.ts";
import { GROUP as DASHBOARD_GROUP, KIND_TERMINAL, RESOURCE_TERMINALS, VERSION as DASHBOARD_VERSION, type Terminal } from "../apis/dashboard/v1alpha1/types.ts";
import { resourceType } from "./resource.ts";

export const Bastions = resourceType<Bastion>({ group: OPERATIONS_GROUP, version: OPERATIONS_VERSION, kind: "Bastion", plural: "bastions", namespaced: true });
export const Shoots = resourceType<Shoot>({ group: CORE_GROUP, version: CORE_VERSION, kind: "Shoot", plural: "shoots", namespaced: true });
export const Projects = resourceType<Project>({ group: CORE_GROUP, version: CORE_VERSION, kind: "Project", plural: "projects", namespaced: false });
export const Terminals = resourceType<Terminal>({ group: DASHBOARD_GROUP, version: DASHBOARD_VERSION, kind: KIND_TERMINAL, plural: RESOURCE_TERMINALS, namespaced: true });
export const Seeds = resourceType<Seed>({ group: CORE_GROUP, version: CORE_VERSION, kind: "Seed", plural: "seeds", namespaced: false });
