"""Several server nodes over one PostgreSQL store and one Redis: see
:mod:`server.cluster.node` (a node: matches hosted here, seats and spectators anywhere) and
:mod:`server.cluster.bus` (the nodes' ordered message bus)."""

from server.cluster.node import ClusterConfig, ClusterNode, RemoteSession

__all__ = ["ClusterConfig", "ClusterNode", "RemoteSession"]
