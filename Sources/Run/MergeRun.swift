import Audit
import Reading
import Reports
import Rules
import Writing

/// `flipaudit stage merge`'s life: the distributed steps' lines merged into
/// one result (`MergeStage`), delivered as one process delivers its own
/// (`Delivery`), so that it exits as one process would.
package struct MergeRun {
    /// The plan's path as given, the plan, and the audit its options ask for.
    package var planPath: String
    package var plan: JobPlan
    package var configuration: AuditConfiguration
    /// Files of stage lines (`-`: standard input).
    package var files: [String]
    package var delivery: Delivery

    package init(planPath: String, plan: JobPlan, configuration: AuditConfiguration, files: [String], delivery: Delivery) {
        self.planPath = planPath
        self.plan = plan
        self.configuration = configuration
        self.files = files.isEmpty ? ["-"] : files
        self.delivery = delivery
    }

    /// Runs; the exit status. Lines that do not add up throw their
    /// `StageError` and leave no output behind, nor the folders made for them.
    package func run(warn: @escaping @Sendable (String) -> Void) throws -> ExitStatus {
        let started = ContinuousClock.now
        // No output may be the plan, a log of the plan or a file of stage
        // lines (standard input included when it is read).
        let outputs = try delivery.plan(inputs: [planPath] + plan.files.compactMap(\.path) + files)
        Interruption.removeTemporaryOutputs(onExit: {})
        let writer = try delivery.csvWriter(outputs)
        let result: AuditResult
        do {
            let sources = try files.map { name throws(StageError) in
                name == "-" ? LineSource() : try LineSource(path: name)
            }
            result = try MergeStage.run(
                plan: plan, configuration: configuration, inputs: sources, rows: writer.map { [$0] } ?? [], warn: warn)
        } catch {
            writer?.discard()
            TemporaryOutputs.shared.removeAll()
            outputs.removeMadeFolders()
            throw error
        }
        return delivery.write(result, plan: outputs, writer: writer, started: started)
    }
}
