// `moat service install [DIR] | uninstall | status | ports | resolved-stub [status|off|on]`.
import { install, portProblem, runCommand, status, uninstall } from "./install.ts";
import { describeHolders, MOAT_PORTS, portHolders } from "./ports.ts";
import { resolvedStubCommand } from "./resolved.ts";

export function serviceCommand(args: string[]): number {
  const [sub, ...rest] = args;
  switch (sub) {
    case "install":
      return install(rest);
    case "uninstall":
      return uninstall();
    case "status":
    case undefined:
      return status();
    case "ports": {
      // the Debian package's postinst asks this before it starts the service
      const holders = portHolders(MOAT_PORTS);
      const problem = portProblem(holders);
      if (problem) console.error(problem);
      else console.log(describeHolders(holders).join("\n") || "ports 53 and 80 are free");
      return problem ? 1 : 0;
    }
    case "resolved-stub":
      return resolvedStubCommand(rest[0] ?? "status", runCommand);
    default:
      throw new Error(`unknown service command "${sub}" (install, uninstall, status, ports or resolved-stub)`);
  }
}
