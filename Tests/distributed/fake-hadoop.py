#!/usr/bin/env python3
"""A stand-in for the `hadoop` command, enough to run
contrib/hadoop-streaming/hadoop-jobs.sh on one machine. It is NOT Hadoop:
it checks that the script's command lines say what the script means, by
doing what Hadoop Streaming's code does with them (PipeMapper,
PipeReducer, TextInputWriter, TextOutputReader, the keyonlytext
reader/writer, NLineInputFormat, KeyFieldBasedPartitioner, Text's byte
comparator, TextOutputFormat), as read in the Hadoop 3 sources.

    FAKE_HDFS=DIR fake-hadoop.py fs -mkdir -p /x | -test -e P | -chmod M P
                                    | -put SRC DST | -cat GLOB... | -rm -r -f -skipTrash P
    FAKE_HDFS=DIR fake-hadoop.py jar STREAMING.jar [-D k=v]... [-files a,b]
        -input P -output P -mapper CMD [-reducer CMD] [-numReduceTasks N]
        [-inputformat CLASS] [-partitioner CLASS] [-cmdenv K=V]...

HDFS paths are paths under FAKE_HDFS. Generic options (-D, -files) must
come before the streaming options, as Hadoop requires. Map tasks run one
after the other; each reducer runs even when it gets no line, as Hadoop
starts it.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

NLINE = "org.apache.hadoop.mapred.lib.NLineInputFormat"
KEYFIELD = "org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner"


def die(msg, status=1):
    print("fake-hadoop: " + msg, file=sys.stderr)
    sys.exit(status)


def hdfs(path):
    root = os.environ.get("FAKE_HDFS") or die("set FAKE_HDFS")
    return os.path.join(root, path.lstrip("/"))


def fs(args):
    op, rest = args[0], args[1:]
    paths = [a for a in rest if not a.startswith("-")]
    if op == "-test":
        sys.exit(0 if os.path.exists(hdfs(paths[0])) else 1)
    if op == "-mkdir":
        os.makedirs(hdfs(paths[0]), exist_ok="-p" in rest)
    elif op == "-chmod":
        os.chmod(hdfs(paths[1]), int(paths[0], 8))
    elif op == "-put":
        if os.path.exists(hdfs(paths[1])):
            die("put: %s exists" % paths[1])
        shutil.copyfile(paths[0], hdfs(paths[1]))
    elif op == "-rm":
        shutil.rmtree(hdfs(paths[0]), ignore_errors=True)
    elif op == "-cat":
        out = sys.stdout.buffer
        for pattern in paths:
            found = sorted(glob.glob(hdfs(pattern)))
            if not found:
                die("cat: %s: No such file or directory" % pattern)
            for f in found:
                with open(f, "rb") as h:
                    shutil.copyfileobj(h, out)
    else:
        die("fs %s is not faked" % op)


def split_args(command):
    """PipeMapRed.splitArgs: spaces split, single or double quotes group."""
    args, cur, quote, had = [], "", None, False
    for ch in command:
        if quote:
            if ch == quote:
                quote = None
            else:
                cur += ch
        elif ch in "'\"":
            quote, had = ch, True
        elif ch == " ":
            if cur or had:
                args.append(cur)
            cur, had = "", False
        else:
            cur += ch
    if cur or had:
        args.append(cur)
    return args


def java_hash(data):
    """31 * h + (signed) byte, as KeyFieldBasedPartitioner.hashCode."""
    h = 0
    for b in data:
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return h


def run_task(command, files, cmdenv, stdin_bytes, what):
    task = tempfile.mkdtemp(prefix="fake-task.")
    try:
        for f in files:
            os.symlink(os.path.abspath(f), os.path.join(task, os.path.basename(f)))
        argv = split_args(command)
        # PipeMapRed: a relative program is looked up in the task directory
        # first, then on PATH.
        if not os.path.isabs(argv[0]):
            local = os.path.join(task, argv[0])
            argv[0] = local if os.path.exists(local) else (shutil.which(argv[0]) or argv[0])
        env = dict(os.environ)
        env.update(cmdenv)
        # The task's standard error goes to its log (shown when it fails).
        p = subprocess.run(argv, input=stdin_bytes, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=task, env=env)
        if p.returncode != 0:
            # stream.non.zero.exit.is.failure defaults to true.
            sys.stderr.buffer.write(p.stderr[-2000:])
            die("%s: subprocess failed with code %d; job not successful" % (what, p.returncode))
        return p.stdout
    finally:
        shutil.rmtree(task, ignore_errors=True)


def lines(data):
    """Hadoop's LineReader with the default delimiter: LF, CR or CRLF ends a line."""
    parts = re.split(rb"\r\n|\r|\n", data)
    return parts[:-1] if parts and parts[-1] == b"" else parts


def read_output(data, mode):
    """(key, value) records of a task's stdout: TextOutputReader (split at the
    first tab; no tab: the whole line and an empty value) or
    KeyOnlyTextOutputReader (the whole line, NullWritable)."""
    records = []
    for line in lines(data):
        if mode == "keyonlytext":
            records.append((line, None))
        else:
            k, sep, v = line.partition(b"\t")
            records.append((k, v if sep else b""))
    return records


def text_output(records):
    """TextOutputFormat: key, and tab + value unless the value is null."""
    return b"".join(k + (b"" if v is None else b"\t" + v) + b"\n" for k, v in records)


def jar(args):
    conf, files, cmdenv = {}, [], {}
    opts = {"-numReduceTasks": "1"}
    streaming_started = False
    i = 1  # args[0] is the jar
    while i < len(args):
        a = args[i]
        if a in ("-D", "-files"):
            if streaming_started:
                die("%s after a streaming option: Hadoop reads generic options first" % a, 1)
            if a == "-D":
                k, _, v = args[i + 1].partition("=")
                conf[k] = v
            else:
                files += args[i + 1].split(",")
        elif a == "-cmdenv":
            k, _, v = args[i + 1].partition("=")
            cmdenv[k] = v
            streaming_started = True
        elif a == "-input":
            opts.setdefault("-inputs", []).append(args[i + 1])
            streaming_started = True
        elif a in ("-output", "-mapper", "-reducer", "-numReduceTasks", "-inputformat", "-partitioner"):
            opts[a] = args[i + 1]
            streaming_started = True
        else:
            die("option %s is not faked" % a, 1)
        i += 2
    for f in files:
        if not os.path.exists(f):
            die("-files: %s does not exist" % f)
    out_dir = hdfs(opts["-output"])
    if os.path.exists(out_dir):
        die("Output directory %s already exists" % opts["-output"], 1)
    fmt = opts.get("-inputformat")
    if fmt not in (None, NLINE):
        die("input format %s is not faked" % fmt)
    ignore_key = conf.get("stream.map.input.ignoreKey", "true" if fmt is None else "false") == "true"
    per_split = int(conf.get("mapreduce.input.lineinputformat.linespermap", "1"))
    inputs = []
    for p in opts["-inputs"]:
        p = hdfs(p)
        if os.path.isdir(p):
            inputs += sorted(os.path.join(p, n) for n in os.listdir(p) if not n.startswith(("_", ".")))
        else:
            inputs.append(p)
    # Splits: (key, value) records. NLineInputFormat: N lines a split, key
    # the byte offset; TextInputFormat: here one split per file.
    splits = []
    for f in inputs:
        data = open(f, "rb").read()
        recs, offset = [], 0
        for m in re.finditer(rb"([^\r\n]*)(\r\n|\r|\n|$)", data):
            if m.end() == m.start():
                break
            recs.append((b"%d" % offset, m.group(1)))
            offset = m.end()
        if fmt == NLINE:
            splits += [recs[j:j + per_split] for j in range(0, len(recs), per_split)]
        elif recs:
            splits.append(recs)
    map_mode = conf.get("stream.map.output", "text")
    reducers = int(opts["-numReduceTasks"])
    mapped = []
    os.makedirs(out_dir)
    for n, split in enumerate(splits):
        stdin = b"".join((v if ignore_key else k + b"\t" + v) + b"\n" for k, v in split)
        out = read_output(run_task(opts["-mapper"], files, cmdenv, stdin, "map %d" % n), map_mode)
        if reducers == 0:
            with open(os.path.join(out_dir, "part-m-%05d" % n), "wb") as h:
                h.write(text_output(out))
        else:
            mapped += out
    if reducers > 0:
        if opts.get("-partitioner") == KEYFIELD:
            spec = conf.get("mapreduce.partition.keypartitioner.options")
            if spec != "-k1,1":
                die("partitioner options %r are not faked" % spec)
            part = lambda k: (java_hash(k.split(b"\t", 1)[0]) & 0x7FFFFFFF) % reducers
        elif opts.get("-partitioner") is None:
            part = lambda k: (java_hash(k) + 31 ** len(k) & 0x7FFFFFFF) % reducers  # Text.hashCode
        else:
            die("partitioner %s is not faked" % opts["-partitioner"])
        parts = [[] for _ in range(reducers)]
        for k, v in mapped:
            parts[part(k)].append((k, v))
        red_in = conf.get("stream.reduce.input", "text")
        red_out = conf.get("stream.reduce.output", "text")
        for n, recs in enumerate(parts):
            recs.sort(key=lambda kv: kv[0])  # Text's comparator: bytes, unsigned; stable
            if red_in == "keyonlytext":
                stdin = b"".join(k + b"\n" for k, _ in recs)
            else:
                stdin = b"".join(k + b"\t" + (v or b"") + b"\n" for k, v in recs)
            out = read_output(run_task(opts["-reducer"], files, cmdenv, stdin, "reduce %d" % n), red_out)
            with open(os.path.join(out_dir, "part-r-%05d" % n), "wb") as h:
                h.write(text_output(out))
    open(os.path.join(out_dir, "_SUCCESS"), "wb").close()


def main():
    if len(sys.argv) < 2:
        die("usage: fake-hadoop.py fs ... | jar JAR ...", 2)
    if sys.argv[1] == "fs":
        fs(sys.argv[2:])
    elif sys.argv[1] == "jar":
        jar(sys.argv[2:])
    else:
        die("%s is not faked" % sys.argv[1], 2)


if __name__ == "__main__":
    main()
