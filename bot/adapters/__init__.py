"""What people meet: the Discord adapter, the terminal room and the practice opponent."""
