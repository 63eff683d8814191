#!/usr/bin/env python3
"""Runs a flipaudit audit on Apache Spark: the `flipaudit stage` commands as
map, shuffle and reduce, with the outputs and exit status of one process.

    python3 contrib/spark/flipaudit_spark.py --master MASTER --flipaudit BIN
        [--csv DIR] [--json FILE|-] [--html FILE] [--metrics FILE]
        [--fail-on SEVERITY] [--quiet] [--no-color]
        [--partitions N] [--files-per-task K] [--work DIR] [--keep-work]
        [--stats] [--stats-json FILE]
        [audit options...] INPUTS... [-- more INPUTS or options for stage plan]

Every option this driver does not know, and every argument after `--`
(with the `--`), goes to `flipaudit stage plan` in the order given: the
audit options (--client-id, --project-id, --session-timeout, ...)
and the inputs, exactly as one process takes them. The output options go
to `flipaudit stage merge`, which runs here on the driver at the end.

Steps (docs: contrib/spark/README.md):

 1. `stage plan` on the driver writes job.plan into a private work
    directory (umask 077: the plan holds the job's key).
 2. The plan's `file` lines become an RDD, --files-per-task lines a task;
    each task pipes its lines through `stage read`.
 3. The `facts` lines are collected on the driver into WORK/facts, which
    every reducer reads whole.
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

Paths: the work directory, BIN and every input must be readable at the same
path on every executor. The default work directory is a new one under
$TMPDIR, right for local[N]; on a cluster give --work a directory on a
shared file system (a fresh private directory is made inside it).

Exit status: that of `stage merge` (0 clean, 1 a finding at or above
--fail-on, 3 an input not read completely, 4 an output not written), or of
`stage plan` when it fails (2: usage); when a stage fails inside Spark,
that stage's status (2: malformed or unsorted stage input), with its
message; 2 for a usage error of this driver; 70 when Spark fails otherwise.
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


def stage_runner(argv, name, tmpdir):
    """A mapPartitions function that pipes a partition's lines (bytes)
    through one stage process and yields its output lines (bytes, without
    the newline).

    Like RDD.pipe, but: bytes in and out (RDD.pipe encodes str(x) as UTF-8
    and decodes the output strictly), argv without a shell or shlex, the
    stage's standard error kept and put into the task's error, an
    exception of the feeding side re-raised (RDD.pipe loses it in its
    writer thread and can leave the child waiting for input), and the exit
    status always checked.
    """

    def run(iterator):
        err = tempfile.TemporaryFile()
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=stage_env(tmpdir), close_fds=True
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
            err.seek(0)
            text = "; ".join(err.read()[-4000:].decode("utf-8", "replace").split("\n")).strip("; ")
            raise RuntimeError("%s:%s:%d: %s" % (FAILURE_MARK, name, status, text))

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
    ap.add_argument("--master", default="local[2]", help="Spark master URL (default local[2])")
    ap.add_argument("--flipaudit", required=True, metavar="BIN", help="the flipaudit binary (same path on every executor)")
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
    return args, plan_args + tail


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
    found = shutil.which(path) if os.sep not in path else path
    if not found or not os.access(found, os.X_OK):
        print("flipaudit_spark.py: %s is not an executable flipaudit binary" % path, file=sys.stderr)
        sys.exit(2)
    return os.path.abspath(found)


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
    m = re.search(FAILURE_MARK + r":([a-z]+(?: [0-9]+)?):(\d+): ?(.*?)(?:\\n|\n|$)", str(exc))
    if not m:
        return None
    return m.group(1), int(m.group(2)), m.group(3)


def main(argv):
    t_start = time.monotonic()
    args, plan_args = parse_arguments(argv)
    binary = resolve_binary(args.flipaudit)

    os.umask(0o077)
    parent = args.work or os.environ.get("TMPDIR") or "/tmp"
    try:
        os.makedirs(parent, exist_ok=True)
        work = tempfile.mkdtemp(prefix="flipaudit-spark.", dir=parent)
    except OSError as e:
        print("flipaudit_spark.py: cannot make a work directory in %s: %s" % (parent, e), file=sys.stderr)
        return 2
    plan = os.path.join(work, "job.plan")
    facts_path = os.path.join(work, "facts")
    stats = {"master": args.master}
    try:
        # 1. The plan.
        t0 = time.monotonic()
        with open(plan, "wb") as f:
            status = subprocess.call([binary, "stage", "plan"] + plan_args, stdout=f)
        if status != 0:
            return status
        with open(plan, "rb") as f:
            file_lines = [line.rstrip(b"\n") for line in f if line.startswith(b"file\t")]
        stats["plan_seconds"] = round(time.monotonic() - t0, 3)
        stats["files"] = len(file_lines)

        # 2-5. Spark.
        t0 = time.monotonic()
        try:
            sc = start_spark(args, work)
        except ImportError:
            print(
                "flipaudit_spark.py: pyspark cannot be imported by %s; install it (pip install pyspark==4.3.0) "
                "in a venv and run this script with that venv's python" % sys.executable,
                file=sys.stderr,
            )
            return 2
        stats["spark_start_seconds"] = round(time.monotonic() - t0, 3)
        try:
            merge_input = run_spark(sc, args, binary, plan, facts_path, file_lines, stats)
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
                print("flipaudit_spark.py: flipaudit stage %s exited with status %d: %s" % failed, file=sys.stderr)
                return failed[1]
            print("flipaudit_spark.py: the Spark job failed: %s" % str(e).strip()[:4000], file=sys.stderr)
            return EXIT_SPARK_FAILED
        finally:
            t0 = time.monotonic()
            sc.stop()
            stats["spark_stop_seconds"] = round(time.monotonic() - t0, 3)
        return status
    finally:
        stats["wall_seconds"] = round(time.monotonic() - t_start, 3)
        report(args, stats)
        if args.keep_work:
            print("flipaudit_spark.py: work directory kept: %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def start_spark(args, work):
    if args.master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # The executors' Python must be this one (same pyspark, same version).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark import SparkConf, SparkContext

    log4j = "-Dlog4j2.configurationFile=file:" + log4j_config(work)
    conf = (
        SparkConf()
        .setMaster(args.master)
        .setAppName(args.app_name)
        .set("spark.ui.enabled", "false")
        .set("spark.ui.showConsoleProgress", "false")
        .set("spark.driver.extraJavaOptions", log4j)
        .set("spark.executor.extraJavaOptions", log4j)
    )
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    return sc


def run_spark(sc, args, binary, plan, facts_path, file_lines, stats):
    from pyspark import StorageLevel

    partitions = args.partitions or sc.defaultParallelism
    stats["partitions"] = partitions
    tmp = args.stage_tmpdir
    read_tasks = max(1, -(-len(file_lines) // args.files_per_task))
    stats["read_tasks"] = read_tasks

    # 2. Map: read stage, files_per_task file lines a task.
    t0 = time.monotonic()
    mapped = (
        sc.parallelize(file_lines, read_tasks)
        .mapPartitions(stage_runner([binary, "stage", "read", "--plan", plan], "read", tmp))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    mapped.count()
    stats["read_seconds"] = round(time.monotonic() - t0, 3)

    # 3. The facts of every file, for every reducer.
    facts = sorted(mapped.filter(is_facts).collect())
    with open(facts_path, "wb") as f:
        for line in facts:
            f.write(line + b"\n")
    stats["facts_lines"] = len(facts)

    # 4. Shuffle 1 by state (or record), sorted as bytes: the session stage.
    t0 = time.monotonic()
    events = mapped.filter(is_not_facts)
    stats["event_lines"], stats["event_bytes"] = line_volume(events)
    sessions = (
        shuffle_sorted(events, partitions)
        .mapPartitions(stage_runner([binary, "stage", "sessions", "--plan", plan, "--facts", facts_path], "sessions", tmp))
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
        .mapPartitions(stage_runner([binary, "stage", "codes", "--plan", plan], "codes", tmp))
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
