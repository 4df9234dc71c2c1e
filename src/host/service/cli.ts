// `moat service install [DIR] | uninstall | status | ports | resolved-stub [status|off|on]`.
import { install, runCommand, status, uninstall } from "./install.ts";
import { describeHolders, MOAT_PORTS, portHolders } from "./ports.ts";
import { portProblem } from "./install.ts";
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
      const problem = portProblem(portHolders(MOAT_PORTS));
      if (problem) console.error(problem);
      else console.log(describeHolders(portHolders(MOAT_PORTS)).join("\n") || "ports 53 and 80 are free");
      return problem ? 1 : 0;
    }
    case "resolved-stub":
      return resolvedStubCommand(rest[0] ?? "status", runCommand);
    default:
      throw new Error(`unknown service command "${sub}" (install, uninstall, status, ports or resolved-stub)`);
  }
}
