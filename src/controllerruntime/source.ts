// A Kind source: the shared informer of a kind, filtered by predicates, turned into requests
// by an event handler. It stops delivering when the controller's signal aborts.
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { Informer } from "./cache/informer.ts";
import type { Source } from "./controller.ts";
import type { EventHandler } from "./handlers.ts";
import { type Predicate, passesCreate, passesDelete, passesUpdate } from "./predicates.ts";

export function kindSource<T extends KubeObject>(informer: Informer<T>, handler: EventHandler<T>, predicates: readonly Predicate<T>[] = []): Source {
  return {
    start(enqueue, signal) {
      const remove = informer.addEventHandler({
        onAdd: (obj) => {
          if (passesCreate(predicates, obj)) handler.create(obj, enqueue);
        },
        onUpdate: (oldObj, newObj) => {
          if (passesUpdate(predicates, oldObj, newObj)) handler.update(oldObj, newObj, enqueue);
        },
        onDelete: (obj) => {
          if (passesDelete(predicates, obj)) handler.delete(obj, enqueue);
        },
      });
      signal.addEventListener("abort", remove, { once: true });
    },
    waitForSync: (signal) => informer.waitForSync(signal),
  };
}
