# Moat's boot script (boot.scr on partition 1, made with mkimage -T script at build time; docs/updates.md,
# "Boot selection"). U-Boot's distro boot runs it with devtype/devnum set to the card (mmc on a Pi, virtio
# under QEMU), so the same script serves both.
#
# The slot comes from a boot counter, as RAUC's U-Boot backend expects it (https://rauc.readthedocs.io,
# "Integration", U-Boot): BOOT_ORDER lists the slots to try in order, BOOT_<slot>_LEFT how many tries each
# has left. Every boot takes one try from the first slot that has any; a slot whose count reached 0 is
# skipped, so a version that never gets far enough to be marked good (RAUC resets the count: moat-health,
# after its checks) is left after 3 tries, by U-Boot alone. Files of their own, not U-Boot's own uboot.env:
# U-Boot on a Pi would load that as its whole environment and lose its boot command.
#
# The variables are kept twice on this partition, moat-boot.env and moat-boot-redund.env, in the layout of
# U-Boot's redundant environment (CONFIG_SYS_REDUNDAND_ENVIRONMENT, env/common.c): each copy is a CRC32, a
# flags byte, then the variables. Linux reads and writes the pair with fw_printenv/fw_setenv (libubootenv, a
# two-line /etc/fw_env.config), which, like U-Boot, writes the older copy with the newer one's flags + 1
# (255 wraps to 0), so a power cut during one write leaves the other copy whole and at most one step old.
# Debian's U-Boot builds (rpi_arm64, qemu_arm64) have no redundant environment, so their env import/export -c
# know only CRC + variables: the script moves the flags byte out and back in itself.

setenv moat_env1 moat-boot.env
setenv moat_env2 moat-boot-redund.env
setenv moat_env_size 0x4000
# Each copy, one copy without its flags byte (CRC + variables, as env import/export -c read and write it) and
# the copy to write, one after the other in the scratch space above the kernel and initrd (below).
setexpr moat_plain_size ${moat_env_size} - 1
setexpr moat_data_size ${moat_env_size} - 5
setexpr moat_buf1 ${kernel_addr_r} + 0xA000000
setexpr moat_buf2 ${moat_buf1} + ${moat_env_size}
setexpr moat_plain ${moat_buf2} + ${moat_env_size}
setexpr moat_out ${moat_plain} + ${moat_env_size}
setexpr moat_plain_data ${moat_plain} + 4
setexpr moat_flags1 ${moat_buf1} + 4
setexpr moat_flags2 ${moat_buf2} + 4
setexpr moat_out_flags ${moat_out} + 4
setexpr moat_out_data ${moat_out} + 5
# a copy that cannot be loaded reads as zeros, whose CRC is wrong
setexpr moat_both ${moat_env_size} * 2
mw.b ${moat_buf1} 0 ${moat_both}
load ${devtype} ${devnum}:1 ${moat_buf1} ${moat_env1}
load ${devtype} ${devnum}:1 ${moat_buf2} ${moat_env2}

# The newer copy by its flags byte (env/common.c, env_import_redund: 0 after 255 is newer; equal flags, the
# first copy) is imported last, so it wins when both are whole and the other stands when it is not.
setenv moat_order "2 1"
if itest.b *${moat_flags1} -eq 0xff && itest.b *${moat_flags2} -eq 0; then
  setenv moat_order "1 2"
else
  if itest.b *${moat_flags2} -gt *${moat_flags1}; then
    if itest.b *${moat_flags2} -eq 0xff && itest.b *${moat_flags1} -eq 0; then
    else
      setenv moat_order "1 2"
    fi
  fi
fi

setenv BOOT_ORDER "A B"
setenv BOOT_A_LEFT 3
setenv BOOT_B_LEFT 3
setenv moat_used
for n in ${moat_order}; do
  if test ${n} = 1; then
    setenv moat_src ${moat_buf1}; setenv moat_file ${moat_env1}; setenv moat_flags_at ${moat_flags1}
  else
    setenv moat_src ${moat_buf2}; setenv moat_file ${moat_env2}; setenv moat_flags_at ${moat_flags2}
  fi
  setexpr moat_src_data ${moat_src} + 5
  cp.b ${moat_src} ${moat_plain} 4
  cp.b ${moat_src_data} ${moat_plain_data} ${moat_data_size}
  if env import -c ${moat_plain} ${moat_plain_size} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT; then
    setenv moat_used ${n}
    setexpr.b moat_flags *${moat_flags_at}
  else
    echo "moat: ${moat_file} is damaged or missing"
  fi
done
if test "x${moat_used}" = "x"; then
  echo "moat: no whole copy of the boot counters: trying slot A then B, 3 times each"
  setenv BOOT_ORDER "A B"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  setenv moat_used 2
  setenv moat_flags 0
fi

# A write goes to the copy not used, with the flags one above the used copy's (mw.b keeps the low byte: 0x100
# is 0), so the copy just read stays as it was until the new one is whole.
setexpr moat_flags ${moat_flags} + 1
setenv moat_target ${moat_env1}
if test ${moat_used} = 1; then setenv moat_target ${moat_env2}; fi
setenv moat_save 'env export -c -s ${moat_plain_size} ${moat_plain} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT && cp.b ${moat_plain} ${moat_out} 4 && mw.b ${moat_out_flags} ${moat_flags} 1 && cp.b ${moat_plain_data} ${moat_out_data} ${moat_data_size} && fatwrite ${devtype} ${devnum}:1 ${moat_out} ${moat_target} ${moat_env_size}'

setenv moat_slot
for s in ${BOOT_ORDER}; do
  if test "x${moat_slot}" = "x"; then
    if test "${s}" = "A" && test ${BOOT_A_LEFT} -gt 0; then
      setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
      setenv moat_slot A
      setenv moat_part 2
    fi
    if test "${s}" = "B" && test ${BOOT_B_LEFT} -gt 0; then
      setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
      setenv moat_slot B
      setenv moat_part 3
    fi
  fi
done

if test "x${moat_slot}" = "x"; then
  # Every slot used up its tries: start over rather than stop (a card that never boots helps nobody).
  echo "moat: no slot has tries left (order ${BOOT_ORDER}): 3 tries each again"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  run moat_save
  reset
fi

# The try is counted before the kernel starts: a kernel that panics or hangs (the watchdog resets the
# board) has used it.
if run moat_save; then
else
  echo "moat: could not write ${moat_target}: this boot is not counted"
fi
echo "moat: booting slot ${moat_slot} (partition ${moat_part}); tries left A=${BOOT_A_LEFT} B=${BOOT_B_LEFT}, order ${BOOT_ORDER}"

# The slot's kernel command line is its cmdline.txt (one line; RAUC's post-install handler gives each
# slot its own root= and rauc.slot=). Read as a string: the buffer is zeroed first so that it ends there.
mw.b ${moat_buf1} 0 0x1000
load ${devtype} ${devnum}:${moat_part} ${moat_buf1} cmdline.txt
setexpr.s bootargs *${moat_buf1}

# Debian's vmlinuz is a gzip'd Image: booti unpacks it at kernel_comp_addr_r and moves it to
# kernel_addr_r, where it takes up to about 64 MiB; the initrd goes above that, the buffer above both.
setexpr moat_initrd ${kernel_addr_r} + 0x4000000
setexpr kernel_comp_addr_r ${kernel_addr_r} + 0xB000000
load ${devtype} ${devnum}:${moat_part} ${kernel_addr_r} vmlinuz
setenv kernel_comp_size ${filesize}
load ${devtype} ${devnum}:${moat_part} ${moat_initrd} initrd.img
# The device tree is the one U-Boot was given: the Pi firmware's (with config.txt's dtparam= applied)
# or QEMU's.
booti ${kernel_addr_r} ${moat_initrd}:${filesize} ${fdtcontroladdr}
echo "moat: slot ${moat_slot} did not start: resetting to try again"
reset
