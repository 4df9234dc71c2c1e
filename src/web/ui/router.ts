// Routes are paths under /admin/ (the server sends the page for all of them), so every page has an
// address a person can bookmark and come back to after logging in.
import { useEffect, useState } from "preact/hooks";

const BASE = "/admin";

export function currentPath(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "/";
  return (p || "/") + location.search;
}

const listeners = new Set<() => void>();
addEventListener("popstate", () => listeners.forEach((l) => l()));

export function navigate(to: string, replace = false): void {
  const url = BASE + to;
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  listeners.forEach((l) => l());
  scrollTo(0, 0);
}

/** the current route ("/queries?domain=x") and a re-render whenever it changes */
export function useRoute(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const l = () => setPath(currentPath());
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return path;
}

/** an in-app link: a real <a href> (middle-click works) that routes without a reload */
export function linkProps(to: string) {
  return {
    href: BASE + to,
    onClick: (e: MouseEvent) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      navigate(to);
    },
  };
}
