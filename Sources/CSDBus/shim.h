/* sd-bus, the D-Bus library of libsystemd (Debian libsystemd-dev): the system bus for
   NetworkManager, UPower and logind, the session bus for notifications. StashDesktop uses only
   its non-variadic calls (a message is built and read one basic value at a time), so no shim
   functions are needed. */
#ifndef STASH_CSDBUS_SHIM_H
#define STASH_CSDBUS_SHIM_H

#include <systemd/sd-bus.h>

#endif
