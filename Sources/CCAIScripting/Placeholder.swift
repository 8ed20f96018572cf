import LuaRuntime
