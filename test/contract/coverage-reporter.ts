import type { Reporter, TestModule, TestRunEndReason, TestSpecification, Vitest } from "vitest/node";
import { contractRoutes, requiredPairs, routeKey, satisfies } from "./contract";
import { DEFERRED_PAIRS } from "./deferred";

/**
 * Runs in Node beside the default reporter. Every test's `failure()` calls record the contract
 * pairs they provoked in the test's meta (the meta travels from workerd with the test result);
 * the coverage test records which contract endpoints the code registers. After a full run this
 * fails the run when a listed (status, identifier) of an implemented endpoint was provoked by no
 * passing test. A filtered run (some files or tests left out) only says it skipped the check;
 * `CONTRACT_COVERAGE=report` prints what it saw anyway, without failing (include
 * test/contract/coverage.test.ts in the run).
 */
export default class ContractCoverageReporter implements Reporter {
  private vitest!: Vitest;
  private full = false;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    const all = await this.vitest.globTestSpecifications();
    const selected = new Set(specifications.map((spec) => spec.moduleId));
    this.full = all.every((spec) => selected.has(spec.moduleId)) && !this.vitest.config.testNamePattern;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    const log = this.vitest.logger;
    const enforce = this.full && reason !== "interrupted";
    if (!enforce && process.env.CONTRACT_COVERAGE !== "report") {
      log.log("contract coverage: not checked (only a full run checks it)");
      return;
    }
    const recorded = new Set<string>();
    let implemented: Set<string> | null = null;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta();
        if (meta.contractImplemented) implemented = new Set(meta.contractImplemented);
        if (test.result().state !== "passed") continue;
        for (const key of meta.contractFailures ?? []) recorded.add(key);
      }
    }
    if (!implemented) {
      log.error("contract coverage: the coverage test did not report the implemented endpoints");
      if (enforce) process.exitCode = 1;
      return;
    }
    const implementedRoutes = contractRoutes.filter((route) => implemented.has(routeKey(route)));
    const all = implementedRoutes.flatMap(requiredPairs);
    const deferred = all.filter((pair) => pair in DEFERRED_PAIRS);
    const required = all.filter((pair) => !(pair in DEFERRED_PAIRS));
    const uncovered = required.filter((pair) => !satisfies(pair, recorded));
    log.log(
      `contract routes: ${contractRoutes.length}, implemented: ${implementedRoutes.length}, pending: ${contractRoutes.length - implementedRoutes.length}; ` +
        `error pairs for implemented routes: ${required.length}, covered: ${required.length - uncovered.length}` +
        (deferred.length > 0 ? `; deferred to later areas: ${deferred.length}` : ""),
    );
    const stale = [...deferred.filter((pair) => satisfies(pair, recorded)), ...Object.keys(DEFERRED_PAIRS).filter((pair) => !all.includes(pair))];
    if (stale.length > 0) {
      log.error(`deferred contract pairs that are provoked now or name no implemented route (take them off test/contract/deferred.ts):\n${stale.map((pair) => `  ${pair}`).join("\n")}`);
      if (enforce) process.exitCode = 1;
    }
    if (uncovered.length === 0) return;
    log.error(`contract pairs no passing test provoked through failure():\n${uncovered.map((pair) => `  ${pair}`).join("\n")}`);
    if (enforce) process.exitCode = 1;
  }
}
