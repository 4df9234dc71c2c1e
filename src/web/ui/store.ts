// A value many components read and any may set (the session, the toasts, the open dialog).
import { useEffect, useState } from "preact/hooks";

export class Store<T> {
  private listeners = new Set<(v: T) => void>();
  constructor(private value: T) {}
  get(): T {
    return this.value;
  }
  set(v: T): void {
    this.value = v;
    this.listeners.forEach((l) => l(v));
  }
  subscribe(l: (v: T) => void): () => void {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }
}

export function useStore<T>(s: Store<T>): T {
  const [v, setV] = useState(s.get());
  useEffect(() => {
    setV(s.get());
    return s.subscribe(setV);
  }, [s]);
  return v;
}
