/** mocha's spec reporter plus one closing line CI reads: `N passed, N failed`. */
import Mocha from 'mocha';

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats;
      if (s) process.stdout.write(`\n${s.passes} passed, ${s.failures} failed\n`);
    });
  }
}

export = SpecWithSummary;
