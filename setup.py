"""The one part of the build pyproject.toml cannot say: the optional C module of drivers/hierarchy.

``amc.drivers.hierarchy._native`` (drivers/hierarchy/_native.c) answers the parsers' walks over
lxml's trees in C. It compiles against the headers lxml ships (``lxml.get_include()``: lxml's C
API and the libxml2 headers of the libxml2 lxml is built with), so lxml is a build requirement. It
is optional: where no C compiler is at hand the install goes on without it and the same walks run
in Python (drivers/hierarchy/native.py says which one a process uses).
"""

from __future__ import annotations

import lxml
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "amc.drivers.hierarchy._native",
            sources=["drivers/hierarchy/_native.c"],
            include_dirs=lxml.get_include(),
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
