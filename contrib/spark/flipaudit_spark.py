#!/usr/bin/env python3
"""Runs a flipaudit audit on Apache Spark: the `flipaudit stage` commands as
map, shuffle and reduce, with the outputs and exit status of one process.

    spark-submit [spark options] contrib/spark/flipaudit_spark.py --flipaudit BIN
        [--master MASTER] [--conf KEY=VALUE]...
        [--csv DIR] [--json FILE|-] [--html FILE] [--metrics FILE]
        [--fail-on SEVERITY] [--quiet] [--no-color]
        [--partitions N] [--files-per-task K] [--work DIR] [--keep-work]
        [--stats] [--stats-json FILE]
        [audit options...] INPUTS... [-- more INPUTS or options for stage plan]

(or `python contrib/spark/flipaudit_spark.py ...` with pyspark importable:
the same, with the Spark settings given by --master and --conf.)

Every option this driver does not know, and every argument after `--`
(with the `--`), goes to `flipaudit stage plan` in the order given: the
audit options (--client-id, --project-id, --session-timeout, ...)
and the inputs, exactly as one process takes them. An input written as a
URI (`hdfs://`, `s3a://`, `gs://`, `abfs://`, `file://`, ...) is listed on
the driver through Spark's Hadoop file system layer and read on the
executors through it (`binaryFiles`, streamed into `stage read
--stdin-name URI`); any other input is a path that `stage plan` resolves
and `stage read` opens itself, at the same path on every executor. The
output options go to `flipaudit stage merge`, which runs here on the
driver at the end.

Nothing is shared with the executors but the logs: the binary reaches
them with SparkContext.addFile (SparkFiles), the plan and the facts as
broadcast variables, each written by a task into a private temporary
directory of its own; the executors need no Python beyond what PySpark
itself runs on (`python3`, or spark.pyspark.python).

Steps (docs: contrib/spark/README.md):

 1. `stage plan` on the driver writes job.plan into a private work
    directory (mode 700; the plan, mode 600, holds the job's key).
 2. The plan's `file` lines become an RDD, --files-per-task lines a task;
    each task pipes its lines through `stage read`. Each URI input is a
    record of `binaryFiles`, piped through `stage read --stdin-name`.
 3. The `facts` lines are collected on the driver into WORK/facts and
    broadcast to every reducer.
 4. The event lines are keyed by their first field, partitioned by its
    CRC-32 (deterministic across processes and machines, unlike Python's
    hash()) into --partitions parts, sorted within each part as bytes, and
    piped through `stage sessions`.
 5. The `c:` lines of that output are shuffled the same way and piped
    through `stage codes`.
 6. `stage merge` runs on the driver and reads the facts, the session
    stage's other lines and the reuse lines; its exit status is ours.

Lines stay bytes from end to end (never decoded), so the sort is the byte
order of `LC_ALL=C sort` whatever the lines hold.

Exit status: that of `stage merge` (0 clean, 1 a finding at or above
--fail-on, 3 an input not read completely, 4 an output not written), or of
`stage plan` when it fails (2: usage); 3 before the job starts when a URI
input cannot be listed or opened (nothing written); when a stage fails
inside Spark, that stage's status (2: malformed or unsorted stage input),
with its message; 2 for a usage error of this driver; 70 when Spark fails
otherwise (a stage killed by a signal after every retry, a lost cluster),
with one line naming what failed.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib

EXIT_SPARK_FAILED = 70
FAILURE_MARK = "flipaudit-stage-failed"


# ---- helpers that run on the executors (must pickle: module level) ----------


def first_field_part(line):
    """The partition of a stage line: CRC-32 of its first field (the key)."""
    tab = line.find(b"\t")
    return zlib.crc32(line if tab < 0 else line[:tab])


def whole_line(line):
    return line


def as_pair(line):
    return (line, None)


def is_facts(line):
    return line.startswith(b"facts\t")


def is_not_facts(line):
    return not line.startswith(b"facts\t")


def is_code(line):
    return line.startswith(b"c:")


def is_not_code(line):
    return not line.startswith(b"c:")


def stage_env(tmpdir):
    """The whole environment a stage process gets: nothing inherited by chance."""
    env = {
        "PATH": os.environ.get("PATH") or "/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C",
        "TMPDIR": tmpdir or os.environ.get("TMPDIR") or "/tmp",
    }
    if os.environ.get("HOME"):
        env["HOME"] = os.environ["HOME"]
    return env


class TaskFiles:
    """What a task needs on its executor, made there: the binary from
    SparkFiles (made executable), and the broadcast plan and facts written
    into a private temporary directory that is removed when the task ends.
    Nothing comes from a path of the driver's."""

    def __init__(self, binary_name, plan, facts, tmpdir):
        from pyspark import SparkFiles

        self.binary = SparkFiles.get(binary_name)
        if not os.access(self.binary, os.X_OK):
            try:
                os.chmod(self.binary, 0o755)
            except OSError:
                pass
        self.dir = tempfile.mkdtemp(prefix="flipaudit-task.", dir=tmpdir)
        self.plan = self._write("job.plan", plan.value)
        self.facts = self._write("facts", facts.value) if facts is not None else None

    def _write(self, name, data):
        path = os.path.join(self.dir, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path

    def argv(self, stage, *more):
        argv = [self.binary, "stage", stage, "--plan", self.plan]
        if stage == "sessions":
            argv += ["--facts", self.facts]
        return argv + list(more)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def stage_error(name, status, err):
    """The task's error for a stage that failed: one line the driver finds
    (FAILURE_MARK), with the stage's own message or the signal that ended it."""
    err.seek(0)
    text = "; ".join(err.read()[-4000:].decode("utf-8", "replace").split("\n")).strip("; ")
    if status < 0:
        text = "killed by signal %d%s" % (-status, ("; " + text) if text else "")
    return RuntimeError("%s:%s:%d: %s" % (FAILURE_MARK, name, status, text))


def pass_on_messages(name, err):
    """A stage that succeeded may have warned (malformed lines of a read
    task): its messages go to the task's own standard error, the executor's
    log, each marked with the stage."""
    err.seek(0)
    data = err.read()
    if data:
        for line in data.decode("utf-8", "replace").splitlines():
            sys.stderr.write("[flipaudit stage %s] %s\n" % (name, line))
        sys.stderr.flush()


def stage_runner(stage, name, binary_name, plan, facts, tmpdir):
    """A mapPartitions function that pipes a partition's lines (bytes)
    through one stage process and yields its output lines (bytes, without
    the newline).

    Like RDD.pipe, but: bytes in and out (RDD.pipe encodes str(x) as UTF-8
    and decodes the output strictly), argv without a shell or shlex, the
    binary, plan and facts from Spark (TaskFiles), the stage's standard
    error kept and put into the task's error, an exception of the feeding
    side re-raised (RDD.pipe loses it in its writer thread and can leave
    the child waiting for input), and the exit status always checked.
    """

    def run(iterator):
        files = TaskFiles(binary_name, plan, facts, tmpdir)
        try:
            err = tempfile.TemporaryFile(dir=files.dir)
            proc = subprocess.Popen(
                files.argv(stage), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=stage_env(tmpdir), close_fds=True
            )
            failure = []

            def feed():
                try:
                    for line in iterator:
                        proc.stdin.write(line)
                        proc.stdin.write(b"\n")
                except BrokenPipeError:
                    pass  # the stage stopped reading: its exit status says why
                except BaseException as e:  # noqa: BLE001 - re-raised below
                    failure.append(e)
                finally:
                    try:
                        proc.stdin.close()
                    except OSError:
                        pass

            feeder = threading.Thread(target=feed, name="feed " + name, daemon=True)
            feeder.start()
            try:
                for line in proc.stdout:
                    yield line[:-1] if line.endswith(b"\n") else line
            finally:
                proc.stdout.close()
                feeder.join()
                status = proc.wait()
            if failure:
                raise failure[0]
            if status != 0:
                raise stage_error(name, status, err)
            pass_on_messages(name, err)
        finally:
            files.close()

    return run


def uri_reader(names, binary_name, plan, tmpdir):
    """A mapPartitions function over binaryFiles records (path, bytes): each
    file's bytes streamed into `stage read --stdin-name NAME`, NAME the
    input as the plan names it (`names` maps Hadoop's path to it)."""

    def run(iterator):
        files = TaskFiles(binary_name, plan, None, tmpdir)
        try:
            for path, data in iterator:
                name = names.get(path)
                if name is None:
                    raise RuntimeError("%s:read:2: %s: not an input of this plan" % (FAILURE_MARK, path))
                err = tempfile.TemporaryFile(dir=files.dir)
                proc = subprocess.Popen(
                    files.argv("read", "--stdin-name", name), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                    env=stage_env(tmpdir), close_fds=True,
                )
                out, _ = proc.communicate(data)
                del data
                if proc.returncode != 0:
                    raise stage_error("read", proc.returncode, err)
                pass_on_messages("read", err)
                for line in out.split(b"\n"):
                    if line:
                        yield line
        finally:
            files.close()

    return run


# ---- the driver ---------------------------------------------------------------


def parse_arguments(argv):
    if "--" in argv:
        cut = argv.index("--")
        head, tail = argv[:cut], argv[cut:]
    else:
        head, tail = argv, []
    ap = argparse.ArgumentParser(
        prog="flipaudit_spark.py",
        description="Run a flipaudit audit on Apache Spark (map, shuffle, reduce) with the outputs of one process.",
        epilog="Options not listed here, and the inputs, go to `flipaudit stage plan`.",
        allow_abbrev=False,
    )
    ap.add_argument("--master", help="Spark master URL (default: spark-submit's --master, else local[2]); a local master without a failure count gets 4 task attempts (local[N,4])")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable; with spark-submit, its own --conf does the same)")
    ap.add_argument("--flipaudit", required=True, metavar="BIN", help="the flipaudit binary on the driver; shipped to the executors through SparkFiles")
    ap.add_argument("--app-name", default="flipaudit", help="Spark application name")
    out = ap.add_argument_group("outputs (passed to flipaudit stage merge)")
    out.add_argument("--csv", metavar="DIR")
    out.add_argument("--json", metavar="FILE|-")
    out.add_argument("--html", metavar="FILE")
    out.add_argument("--metrics", metavar="FILE")
    out.add_argument("--fail-on", metavar="SEVERITY")
    out.add_argument("-q", "--quiet", action="store_true")
    out.add_argument("--no-color", action="store_true")
    job = ap.add_argument_group("the job")
    job.add_argument("--partitions", type=int, metavar="N", help="reduce partitions of each shuffle (default: Spark's default parallelism)")
    job.add_argument("--files-per-task", type=int, default=1, metavar="K", help="plan file lines per read task (default 1)")
    job.add_argument("--work", metavar="DIR", help="make the private work directory inside DIR (shared file system on a cluster)")
    job.add_argument("--keep-work", action="store_true", help="leave the work directory in place")
    job.add_argument("--stage-tmpdir", metavar="DIR", help="TMPDIR of the stage processes (default: the executor's TMPDIR or /tmp)")
    job.add_argument("--stats", action="store_true", help="print wall times and shuffle volumes to standard error")
    job.add_argument("--stats-json", metavar="FILE", help="write the same figures as JSON to FILE")
    args, plan_args = ap.parse_known_args(head)
    if args.partitions is not None and args.partitions < 1:
        ap.error("--partitions must be at least 1")
    if args.files_per_task < 1:
        ap.error("--files-per-task must be at least 1")
    for kv in args.conf:
        if "=" not in kv:
            ap.error("--conf takes KEY=VALUE, not %r" % kv)
    return args, plan_args + tail


URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
HIDDEN = re.compile(r"/[_.][^/]*$")
# The audit options of `stage plan` that take a value (the value may look like a URI).
VALUE_OPTIONS = {
    "--client-id", "--project-id", "--allow-redirect", "--endpoint", "--format", "--log-format",
    "--session-timeout", "--reuse-window", "--bucket", "--max-line",
}


def split_uris(plan_args):
    """(the arguments for `stage plan` but the URI inputs, the URI inputs)."""
    rest, uris = [], []
    positional_only = False
    skip = False
    for a in plan_args:
        if skip:
            rest.append(a)
            skip = False
        elif positional_only or not a.startswith("-") or a == "-":
            (uris if URI.match(a) else rest).append(a)
        elif a == "--":
            positional_only = True
            rest.append(a)
        else:
            rest.append(a)
            skip = a in VALUE_OPTIONS
    return rest, uris


def local_master(master):
    """local, local[N] and local[*] with retries: local[N,4]."""
    m = re.fullmatch(r"local(?:\[(\d+|\*)\])?", master or "")
    if not m:
        return master
    return "local[%s,4]" % (m.group(1) or "1")


def merge_options(args):
    opts = []
    for flag, value in (("--csv", args.csv), ("--json", args.json), ("--html", args.html), ("--metrics", args.metrics), ("--fail-on", args.fail_on)):
        if value is not None:
            opts += [flag, value]
    if args.quiet:
        opts.append("--quiet")
    if args.no_color:
        opts.append("--no-color")
    return opts


def resolve_binary(path):
    """The binary on the driver: a path, a command on PATH, or (cluster mode,
    shipped with spark-submit --files) a file in the working directory; None
    when none is, to be looked up in SparkFiles once Spark runs."""
    found = shutil.which(path) if os.sep not in path else path
    if not found and os.sep not in path and os.path.isfile(path):
        found = path
    if not found or not os.access(found, os.X_OK):
        return None
    return os.path.abspath(found)


def not_a_binary(path):
    print("flipaudit_spark.py: %s is not an executable flipaudit binary" % path, file=sys.stderr)
    return 2


def log4j_config(work):
    """Spark's log quiet from JVM start (before setLogLevel can act). The root
    level is WARN so that Spark prints no "Setting default log level" note
    (it does when the root level differs from the shell's WARN); the
    loggers that warn at every start, or that repeat a failed task's
    traceback that this driver reports as one line, are quieter."""
    path = os.path.join(work, "log4j2.properties")
    with open(path, "w") as f:
        f.write(
            "rootLogger.level = warn\n"
            "rootLogger.appenderRef.stderr.ref = console\n"
            "appender.console.type = Console\n"
            "appender.console.name = console\n"
            "appender.console.target = SYSTEM_ERR\n"
            "appender.console.layout.type = PatternLayout\n"
            "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n\n"
            "logger.native.name = org.apache.hadoop.util.NativeCodeLoader\n"
            "logger.native.level = error\n"
            "logger.executor.name = org.apache.spark.executor.Executor\n"
            "logger.executor.level = off\n"
            "logger.tasks.name = org.apache.spark.scheduler.TaskSetManager\n"
            "logger.tasks.level = off\n"
        )
    return path


def spark_shuffle_bytes(sc):
    """(write bytes, read bytes, records written) of every stage so far, from
    Spark's status store (kept with spark.ui.enabled=false too); None when
    this Spark does not offer it."""
    try:
        gw = sc._gateway
        stages = sc._jsc.sc().statusStore().stageList(None, False, False, gw.new_array(gw.jvm.double, 0), None)
        w = r = n = 0
        for i in range(stages.length()):
            s = stages.apply(i)
            w += s.shuffleWriteBytes()
            r += s.shuffleReadBytes()
            n += s.shuffleWriteRecords()
        return w, r, n
    except Exception:  # noqa: BLE001 - a figure for the stats only
        return None


def stage_failure(exc):
    """(stage, status, message) of a stage that failed inside Spark, from the
    exception Spark hands back to the driver; None when it is not one."""
    m = re.search(FAILURE_MARK + r":([a-z]+(?: [0-9]+)?):(-?\d+): ?(.*?)(?:\\n|\n|$)", str(exc))
    if not m:
        return None
    status = int(m.group(2))
    if status < 0 or status > 125:
        status = EXIT_SPARK_FAILED  # killed by a signal, every attempt
    return m.group(1), status, m.group(3)


def one_line(exc):
    """The gist of a Spark failure in one line: Spark's own reason when it
    gives one ("Job aborted due to stage failure: ..."), else the first line."""
    text = str(exc)
    m = re.search(r"(Job aborted due to stage failure: [^\n]*?)(?: Most recent failure|\n|$)", text)
    if m:
        return m.group(1)[:600]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:600]


def main(argv):
    t_start = time.monotonic()
    args, plan_args = parse_arguments(argv)
    plan_args, uris = split_uris(plan_args)
    binary = resolve_binary(args.flipaudit)

    # Only the work directory is private (mkdtemp: mode 700; the plan 600);
    # the outputs get the caller's umask, as those of one process do.
    parent = args.work or os.environ.get("TMPDIR") or "/tmp"
    try:
        os.makedirs(parent, exist_ok=True)
        work = tempfile.mkdtemp(prefix="flipaudit-spark.", dir=parent)
    except OSError as e:
        print("flipaudit_spark.py: cannot make a work directory in %s: %s" % (parent, e), file=sys.stderr)
        return 2
    plan = os.path.join(work, "job.plan")
    facts_path = os.path.join(work, "facts")
    stats = {}
    sc = None
    try:
        # Spark first only when it is needed to find the binary or list URIs:
        # a plan that fails (usage, options) fails without a JVM.
        if binary is not None and not uris:
            status = make_plan(binary, plan_args, [], plan) or check_outputs(args, binary, plan)
            if status != 0:
                return status
        t0 = time.monotonic()
        try:
            sc = start_spark(args, work)
        except ImportError:
            print(
                "flipaudit_spark.py: pyspark cannot be imported by %s; install it (pip install pyspark==4.3.0) "
                "in a venv and run this script with that venv's python, or use spark-submit" % sys.executable,
                file=sys.stderr,
            )
            return 2
        except Exception as e:  # noqa: BLE001 - reported as one line, with a status
            print("flipaudit_spark.py: Spark did not start: %s" % one_line(e), file=sys.stderr)
            return EXIT_SPARK_FAILED
        stats["master"] = sc.master
        stats["spark_start_seconds"] = round(time.monotonic() - t0, 3)
        if binary is None:
            binary = shipped_binary(args.flipaudit)
            if binary is None:
                return not_a_binary(args.flipaudit)
        remote = {}
        if uris:
            remote, problems = list_uris(sc, uris)
            if problems:
                # Before the job, and before any output: nothing is written.
                for name, reason in problems:
                    print("flipaudit_spark.py: %s: %s" % (name, reason), file=sys.stderr)
                return 3
        if uris or not os.path.exists(plan):
            status = make_plan(binary, plan_args, sorted(set(remote.values())), plan)
            if status != 0:
                return status
            status = check_outputs(args, binary, plan)
            if status != 0:
                return status
        with open(plan, "rb") as f:
            plan_bytes = f.read()
        file_lines = [line for line in plan_bytes.split(b"\n") if line.startswith(b"file\t")]
        local_lines = [line for line in file_lines if not URI.match(line.split(b"\t", 3)[3].decode("utf-8", "replace"))]
        stats["files"] = len(file_lines)
        try:
            merge_input = run_spark(sc, args, binary, plan_bytes, facts_path, local_lines, remote, stats)
            # 6. The merge, on the driver; the Spark results streamed into it.
            t0 = time.monotonic()
            status = merge(binary, plan, merge_options(args), facts_path, merge_input)
            stats["merge_seconds"] = round(time.monotonic() - t0, 3)
            shuffle = spark_shuffle_bytes(sc)
            if shuffle:
                stats["spark_shuffle_write_bytes"], stats["spark_shuffle_read_bytes"], stats["spark_shuffle_records"] = shuffle
        except Exception as e:  # noqa: BLE001 - reported as one line, with a status
            failed = stage_failure(e)
            if failed:
                print("flipaudit_spark.py: flipaudit stage %s failed (exit %d): %s" % failed, file=sys.stderr)
                return failed[1]
            print("flipaudit_spark.py: the Spark job failed: %s" % one_line(e), file=sys.stderr)
            return EXIT_SPARK_FAILED
        return status
    finally:
        if sc is not None:
            t0 = time.monotonic()
            sc.stop()
            stats["spark_stop_seconds"] = round(time.monotonic() - t0, 3)
        stats["wall_seconds"] = round(time.monotonic() - t_start, 3)
        report(args, stats)
        if args.keep_work:
            print("flipaudit_spark.py: work directory kept: %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def check_outputs(args, binary, plan):
    """0, or the status of a merge that refuses an output: it names the
    output it cannot write, with one process's status, before it reads a
    line (and writes nothing) — now, not after the job."""
    if outputs_can_be_written(args):
        return 0
    with open(os.devnull, "rb") as empty:
        return subprocess.call([binary, "stage", "merge", "--plan", plan] + merge_options(args), stdin=empty)


def outputs_can_be_written(args):
    """False when an output's folder surely is not there (the merge would
    refuse it at the end of the job)."""
    paths = [p for p in (args.json, args.html, args.metrics) if p and p != "-"]
    folders = [os.path.dirname(os.path.abspath(p)) for p in paths]
    if args.csv:
        folders.append(os.path.dirname(os.path.abspath(args.csv.rstrip("/") or "/")))
    return all(os.path.isdir(f) for f in folders)


def make_plan(binary, plan_args, uris, plan):
    """`stage plan` into the private plan file; its exit status."""
    fd = os.open(plan, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        status = subprocess.call([binary, "stage", "plan"] + ["--uri=" + u for u in uris] + plan_args, stdout=f)
    if status != 0:
        os.unlink(plan)
    return status


def shipped_binary(name):
    """The binary shipped with spark-submit --files (cluster mode)."""
    from pyspark import SparkFiles

    try:
        path = SparkFiles.get(os.path.basename(name))
    except Exception:  # noqa: BLE001 - not there
        return None
    if os.path.isfile(path) and not os.access(path, os.X_OK):
        try:
            os.chmod(path, 0o755)
        except OSError:
            pass
    return path if os.access(path, os.X_OK) else None


def list_uris(sc, uris):
    """The files of the URI inputs through the cluster's Hadoop file system
    layer, each opened once: ({Hadoop's path: name as given (a directory's
    files: the directory as given, then their path below it)}, [(URI,
    reason)] for those that cannot be listed or opened)."""
    jvm = sc._jvm
    conf = sc._jsc.hadoopConfiguration()
    found, problems = {}, []
    for uri in uris:
        try:
            path = jvm.org.apache.hadoop.fs.Path(uri)
            fs = path.getFileSystem(conf)
            status = fs.getFileStatus(path)
            base = status.getPath().toString()
            if status.isDirectory():
                names = []
                it = fs.listFiles(status.getPath(), True)
                while it.hasNext():
                    child = it.next().getPath().toString()
                    rel = child[len(base):].lstrip("/")
                    if HIDDEN.search("/" + rel):
                        # Hadoop's input formats (binaryFiles) pass these over.
                        print("flipaudit_spark.py: %s/%s: skipped (a name starting with _ or .)" % (uri.rstrip("/"), rel), file=sys.stderr)
                    elif child.startswith(base):
                        names.append((child, uri.rstrip("/") + "/" + rel))
            elif HIDDEN.search(base):
                raise ValueError("Hadoop's input formats do not read a file whose name starts with _ or .")
            else:
                names = [(base, uri)]
            for child, name in names:
                fs.open(jvm.org.apache.hadoop.fs.Path(child)).close()
                found[child] = name
        except Exception as e:  # noqa: BLE001 - a Py4J error carries the Java reason
            reason = str(e).strip().splitlines()
            java = [line.split("Exception: ", 1)[1] for line in reason if "Exception: " in line]
            problems.append((uri, (java[0] if java else reason[0] if reason else type(e).__name__).strip()[:300]))
    return found, problems


def start_spark(args, work):
    from pyspark import SparkConf, SparkContext

    if "PYSPARK_GATEWAY_PORT" in os.environ:
        # Under spark-submit the JVM runs already: its settings (--master,
        # --conf, --deploy-mode, ...) are the defaults of this SparkConf.
        SparkContext._ensure_initialized()
    conf = SparkConf()
    master = args.master or conf.get("spark.master") or "local[2]"
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        # The executors run here: this Python (the same pyspark) is theirs.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf.setMaster(local_master(master))
    if not conf.contains("spark.app.name"):
        conf.setAppName(args.app_name)
    log4j = "-Dlog4j2.configurationFile=file:" + log4j_config(work)
    conf.set("spark.ui.showConsoleProgress", "false")
    if not conf.contains("spark.ui.enabled"):
        conf.set("spark.ui.enabled", "false")
    if not conf.contains("spark.driver.extraJavaOptions") and master.startswith("local"):
        conf.set("spark.driver.extraJavaOptions", log4j)
    for kv in args.conf:
        key, value = kv.split("=", 1)
        conf.set(key, value)
    sc = SparkContext.getOrCreate(conf=conf)
    sc.setLogLevel("ERROR")
    return sc


def run_spark(sc, args, binary, plan_bytes, facts_path, file_lines, remote, stats):
    from pyspark import StorageLevel

    partitions = args.partitions or sc.defaultParallelism
    stats["partitions"] = partitions
    tmp = args.stage_tmpdir
    # The binary through SparkFiles, the plan and later the facts broadcast.
    binary_name = os.path.basename(binary)
    try:
        sc.addFile(binary)
    except Exception as e:  # noqa: BLE001 - the same name shipped already (spark-submit --files)
        if "already" not in str(e):
            raise
    plan = sc.broadcast(plan_bytes)
    read_tasks = max(1, -(-len(file_lines) // args.files_per_task)) if file_lines else 0
    stats["read_tasks"] = read_tasks

    # 2. Map: read stage, files_per_task file lines a task; URIs through binaryFiles.
    t0 = time.monotonic()
    parts = []
    if file_lines:
        parts.append(sc.parallelize(file_lines, read_tasks).mapPartitions(stage_runner("read", "read", binary_name, plan, None, tmp)))
    if remote:
        names = dict(remote)
        files = sc.binaryFiles(",".join(sorted(remote)), max(1, -(-len(remote) // args.files_per_task)))
        parts.append(files.mapPartitions(uri_reader(names, binary_name, plan, tmp)))
        stats["read_tasks"] += files.getNumPartitions()
    mapped = (parts[0] if len(parts) == 1 else sc.union(parts)).persist(StorageLevel.MEMORY_AND_DISK)
    mapped.count()
    stats["read_seconds"] = round(time.monotonic() - t0, 3)

    # 3. The facts of every file, for every reducer.
    facts = sorted(mapped.filter(is_facts).collect())
    facts_bytes = b"".join(line + b"\n" for line in facts)
    fd = os.open(facts_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(facts_bytes)
    facts_bc = sc.broadcast(facts_bytes)
    stats["facts_lines"] = len(facts)

    # 4. Shuffle 1 by state (or record), sorted as bytes: the session stage.
    t0 = time.monotonic()
    events = mapped.filter(is_not_facts)
    stats["event_lines"], stats["event_bytes"] = line_volume(events)
    sessions = (
        shuffle_sorted(events, partitions)
        .mapPartitions(stage_runner("sessions", "sessions", binary_name, plan, facts_bc, tmp))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    sessions.count()
    mapped.unpersist()
    stats["sessions_seconds"] = round(time.monotonic() - t0, 3)

    # 5. Shuffle 2 by code: the code stage.
    t0 = time.monotonic()
    codes = sessions.filter(is_code)
    stats["code_lines"], stats["code_bytes"] = line_volume(codes)
    reuse = (
        shuffle_sorted(codes, partitions)
        .mapPartitions(stage_runner("codes", "codes", binary_name, plan, None, tmp))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    reuse.count()
    stats["codes_seconds"] = round(time.monotonic() - t0, 3)
    return [sessions.filter(is_not_code), reuse]


def shuffle_sorted(rdd, partitions):
    """Every line of one key into one partition, each partition sorted as bytes."""
    return rdd.map(as_pair).repartitionAndSortWithinPartitions(partitions, first_field_part, True, whole_line).keys()


def line_volume(rdd):
    """(lines, bytes with newlines) of an RDD of lines."""
    return rdd.map(lambda line: (1, len(line) + 1)).fold((0, 0), lambda a, b: (a[0] + b[0], a[1] + b[1]))


def merge(binary, plan, options, facts_path, rdds):
    """Runs the merge with the facts and the RDDs' lines on its standard
    input; its exit status. Should fetching a line fail, the merge is
    stopped (SIGTERM) before its input ends, so that it writes no report of
    half the lines."""
    proc = subprocess.Popen([binary, "stage", "merge", "--plan", plan] + options, stdin=subprocess.PIPE)
    try:
        with open(facts_path, "rb") as f:
            shutil.copyfileobj(f, proc.stdin)
        for rdd in rdds:
            for line in rdd.toLocalIterator():
                proc.stdin.write(line)
                proc.stdin.write(b"\n")
    except BrokenPipeError:
        pass  # merge stopped reading (a usage error): its status says so
    except BaseException:
        proc.terminate()  # SIGTERM: flipaudit removes its temporary files
        proc.wait()
        raise
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    return proc.wait()


def report(args, stats):
    if args.stats:
        s = stats
        parts = ["%s %.1f s" % (k[:-8], s[k]) for k in ("plan_seconds", "spark_start_seconds", "read_seconds", "sessions_seconds", "codes_seconds", "merge_seconds", "spark_stop_seconds") if k in s]
        print("flipaudit_spark.py: %s, %s files, %s partitions: wall %.1f s (%s)" % (
            s.get("master"), s.get("files", "?"), s.get("partitions", "?"), s.get("wall_seconds", 0), ", ".join(parts)), file=sys.stderr)
        if "event_lines" in s:
            line = "flipaudit_spark.py: shuffled %d event lines (%d bytes) and %d code lines (%d bytes)" % (
                s["event_lines"], s["event_bytes"], s.get("code_lines", 0), s.get("code_bytes", 0))
            if "spark_shuffle_write_bytes" in s:
                line += "; Spark shuffle write %d bytes, read %d bytes" % (s["spark_shuffle_write_bytes"], s["spark_shuffle_read_bytes"])
            print(line, file=sys.stderr)
    if args.stats_json:
        import json

        with open(args.stats_json, "w") as f:
            json.dump(stats, f, indent=2, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
