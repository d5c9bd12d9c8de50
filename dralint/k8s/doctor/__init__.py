"""``dralint doctor``: why the device pods of a live cluster dump are Pending or failing.

:mod:`dump` reads ``kubectl get pods,resourceclaims,resourceslices,deviceclasses,nodes -A -o
yaml`` into an index; :mod:`diagnose` walks each problem pod through the checks an operator would
make, in order, and ends with the allocator run on the dump's free devices; :mod:`report` renders
the result as text for people or as JSON.
"""

from dralint.k8s.doctor.diagnose import Diagnosis, Step, diagnose
from dralint.k8s.doctor.dump import Dump, DumpError, load_dump

__all__ = ["Diagnosis", "Dump", "DumpError", "Step", "diagnose", "load_dump"]
