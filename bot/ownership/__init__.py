"""One host per match: shard leases with fencing epochs, hot standby and handover (issue 27)."""
