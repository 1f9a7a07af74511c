ws
