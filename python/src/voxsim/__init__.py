"""voxsim for Python: a client of the simulator's control API and a pytest plugin.

Example::

    from voxsim import Voxsim
    sim = Voxsim("http://127.0.0.1:4010/api")
    box = sim.sandbox(seed=7)
    box.clock.advance("2h")
"""
from .client import Sandbox, Voxsim, parse_time
from .errors import VoxsimConnectionError, VoxsimError
from .server import VoxsimServer, start_server

__version__ = "0.1.0"

__all__ = ["Sandbox", "Voxsim", "VoxsimConnectionError", "VoxsimError", "VoxsimServer", "parse_time", "start_server", "__version__"]
