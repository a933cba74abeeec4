"""``amc mcp --device SPEC``: serve one device to an MCP client over stdio.

Everything is checked and the device connected before the server starts (exit 2 for a bad
argument, 3 when the device cannot be reached); then the server answers on stdin/stdout until
the client closes them. Stdout carries only the protocol: notes go to stderr, the log to the
run folder's ``run.log``. The session's steps are written to the run folder's timeline as they
run; the report is rendered when the client goes away (it closes stdin, or stops the server with
SIGTERM or Ctrl-C: a call under way ends at its next poll, recorded ``interrupted``, then the run
folder is finished and the device released before the process leaves; a second signal quits at
once, exit 130).
"""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

from .. import connect as connect_module
from ..core.errors import ConfigError
from ..runtime.recording import SCREENSHOT_POLICIES
from ..runtime.task import TaskRunnerConfig
from ..storage.timeline import new_run_dir
from .agent import add_allow_app, add_out, allowed_apps, check_out_dir, device_spec, extra_missing
from .common import EXIT_INTERRUPTED, EXIT_OK, Streams, add_device_options, connect_device
from .interrupt import QUIT_NOTE
from .schedule import LOG_FILE, run_logging

__all__ = ["run_mcp", "setup_mcp"]


def setup_mcp(parser: argparse.ArgumentParser) -> None:
    add_device_options(parser)
    add_out(parser)
    add_allow_app(parser)
    parser.add_argument(
        "--flow-root",
        default=".",
        metavar="DIR",
        help="the folder run_flow may read flow files from (default: the current folder)",
    )
    parser.add_argument(
        "--allow-http",
        action="store_true",
        help="let the scripts of a flow run_flow runs make HTTP requests (Maestro's http.get/post...); "
        "off by default: an agent's flow reaches no network",
    )
    parser.add_argument(
        "--screenshots",
        choices=SCREENSHOT_POLICIES,
        default="failure",
        help="when a step's screenshot goes into the run folder (default: failure)",
    )


def run_mcp(args: argparse.Namespace, io: Streams) -> int:
    try:
        from ..agent.mcp_server import build_server, serve_stdio
        from ..agent.service import DeviceService
    except ImportError as exc:
        return extra_missing(io, "mcp", exc, "mcp")
    check_out_dir(args.out)
    flow_root = Path(args.flow_root)
    if not flow_root.is_dir():
        raise ConfigError(f"--flow-root {args.flow_root} is not a folder")
    allowed = allowed_apps(args.allow_app)
    config = TaskRunnerConfig.from_env()
    spec, reason = device_spec(args)
    driver = connect_device(spec)
    try:
        run_dir = new_run_dir(args.out, "mcp")
        redactor = io.redactor  # the one stderr hides secrets with: the run's files and replies use it
        service = DeviceService(
            driver,
            spec=spec,
            run_dir=run_dir,
            flow_root=flow_root,
            config=config,
            allowed_apps=allowed,
            screenshots=args.screenshots,
            discover=connect_module.discover,
            redactor=redactor,
            allow_http=args.allow_http,
        )
        with run_logging(redactor, run_dir / LOG_FILE, io):
            service.start()
            io.err.write(
                f"amc mcp: serving {spec} = {driver.platform} {driver.device_id} via {driver.backend} "
                f"({reason}) on stdio; run folder: {run_dir}\n"
            )
            io.err.flush()

            stops = 0

            def stop(signum: int, frame: object) -> None:
                # A client that stops the server: the stdin reader blocks in a thread the event loop
                # cannot cancel, so finish the run folder and release the device here, then leave.
                nonlocal stops
                stops += 1
                if stops > 1:  # while the first waits for a device call under way: quit now
                    os.write(2, QUIT_NOTE.encode())
                    os._exit(EXIT_INTERRUPTED)
                service.cancel.set(f"the MCP server was stopped (signal {signum})")
                report = service.close()  # waits for a call under way to end (at its next poll)
                driver.close()
                io.err.write(f"amc mcp: stopped by signal {signum}; report: {report}\n")
                io.err.flush()
                os._exit(EXIT_OK)

            previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
            try:
                serve_stdio(build_server(service))
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)
                report = service.close()
        io.err.write(f"amc mcp: the client went away; report: {report}\n")
    finally:
        driver.close()
    return EXIT_OK
